-- wrk script: GET /v1/me with a different real RS256 token per request, rotating through a file of tokens
-- (one per line, from `ENV=dev storygate mint-token --count N --out FILE`). TOKENS=FILE overrides the path.
local path = os.getenv("TOKENS") or "tokens.txt"
local tokens = {}
for line in io.lines(path) do tokens[#tokens + 1] = line end
local index = 0

request = function()
  index = index % #tokens + 1
  return wrk.format("GET", "/v1/me", { ["Authorization"] = "Bearer " .. tokens[index] })
end
