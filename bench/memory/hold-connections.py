#!/usr/bin/env python3
"""Open N keep-alive connections to a gateway and hold them: bench/memory.sh's 10,000-connection step.

Each connection sends one GET with a bearer token (rotating through a token file), reads the whole answer, and stays
open. Once every connection has been tried it prints one line, `READY open=N failed=F statuses=...`, and holds them
for --hold seconds (or until SIGTERM), then prints `DONE still_open=N` (connections the server had not closed) and
closes them all. Standard library only; raises its own open-files limit to the hard limit.
"""

import argparse
import asyncio
import collections
import resource
import signal
import sys


async def open_one(host, port, path, token, timeout):
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n\r\n"
    writer.write(request.encode("ascii"))
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length:
        await asyncio.wait_for(reader.readexactly(length), timeout)
    return reader, writer, status


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", default="/v1/me")
    parser.add_argument("--tokens", required=True, help="token file, one per line")
    parser.add_argument("--count", type=int, default=10000)
    parser.add_argument("--concurrency", type=int, default=200, help="connections being opened at once")
    parser.add_argument("--hold", type=float, default=15.0, help="seconds to hold them once all are open")
    parser.add_argument("--timeout", type=float, default=30.0)
    arguments = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = arguments.count + 100
    if soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(wanted, soft)), hard))
        except (ValueError, OSError):
            pass
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft < wanted:
            print(f"open-files limit {soft} is below {wanted}: raise it (ulimit -n)", file=sys.stderr)
            return 2

    with open(arguments.tokens) as handle:
        tokens = [line.strip() for line in handle if line.strip()]
    semaphore = asyncio.Semaphore(arguments.concurrency)
    statuses = collections.Counter()
    errors = collections.Counter()
    held = []

    async def one(index):
        async with semaphore:
            try:
                reader, writer, status = await open_one(
                    arguments.host, arguments.port, arguments.path, tokens[index % len(tokens)], arguments.timeout
                )
            except Exception as error:  # noqa: BLE001 - counted and reported, never fatal
                errors[type(error).__name__] += 1
                return
            statuses[status] += 1
            held.append((reader, writer))

    await asyncio.gather(*(one(index) for index in range(arguments.count)))
    shown = ",".join(f"{status}:{count}" for status, count in sorted(statuses.items()))
    failed = ",".join(f"{name}:{count}" for name, count in sorted(errors.items()))
    print(f"READY open={len(held)} failed={sum(errors.values())} statuses={shown or '-'} errors={failed or '-'}", flush=True)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), arguments.hold)
    except asyncio.TimeoutError:
        pass
    still_open = sum(1 for reader, _ in held if not reader.at_eof())
    print(f"DONE still_open={still_open}", flush=True)
    for _, writer in held:
        writer.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
