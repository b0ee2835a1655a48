#!/usr/bin/env python3
"""Validates recorded OpenAI request bodies against the official OpenAI API description.

Usage:
    validate.py DIR [--spec PATH]      every `<n>-<endpoint>.json` file in DIR (as `storygate mock-openai
                                       --record-dir DIR` writes them)
    validate.py --self-test [--spec PATH]

The spec defaults to $OPENAI_SPEC, else `shared/openai/openapi.yaml` in the repository's parent directory.
It is OpenAPI 3.1 with a few older keywords; the adjustments listed in shared/openai/SOURCE.md are applied in
memory (the file is never changed):
  - `nullable: true` adds "null" to `type` (and to `enum`);
  - a boolean `exclusiveMinimum`/`exclusiveMaximum: true` becomes the numeric bound;
  - `$recursiveRef`/`$recursiveAnchor` become a `$ref` to the enclosing components/schemas entry;
  - `oneOf` is validated as `anyOf`;
  - a property with a `default` is not required (in a request);
  - each request schema's top-level property list is closed (unknown top-level fields are errors);
  - `json_schema.name` matches `^[a-zA-Z0-9_-]{1,64}$` (the spec says so in prose only);
  - model rules: gpt-5 and o-series models reject `max_tokens` and a non-default `temperature`; GPT image
    models (`gpt-image*`) reject `response_format` and `style`; `dall-e-3` needs `n = 1`; with
    `response_format` `json_schema` and `strict: true`, every object in the schema has
    `additionalProperties: false` and lists all its properties in `required`.
Prints one line per file (`ok` or its errors with JSON paths) and `N passed, M failed`; exits 1 on any failure.
"""

import argparse
import json
import os
import re
import sys
from pathlib import Path

try:
    import yaml
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012
except ImportError as error:  # pragma: no cover
    sys.exit(f"validate.py needs PyYAML, jsonschema and referencing (pip install -r requirements.txt): {error}")

DOCUMENT_URI = "urn:openai:openapi"

#: Recorded endpoint name → request schema.
ENDPOINT_SCHEMAS = {
    "chat.completions": "CreateChatCompletionRequest",
    "audio.speech": "CreateSpeechRequest",
    "images.generations": "CreateImageRequest",
    "images.edits": "CreateImageEditRequest",
    "moderations": "CreateModerationRequest",
}

#: `json_schema.name`, as the spec describes it in prose (its schema has no pattern).
SCHEMA_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")

FILE_NAME = re.compile(r"^\d+-(?P<endpoint>[a-z.]+)\.json$")


def default_spec_path():
    if os.environ.get("OPENAI_SPEC"):
        return Path(os.environ["OPENAI_SPEC"])
    repo_root = Path(__file__).resolve().parent.parent.parent
    return repo_root.parent / "shared" / "openai" / "openapi.yaml"


# MARK: - Loading and adjusting the document


def load_document(path):
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path, "rb") as file:
        return yaml.load(file, Loader=loader)


def adjust(node, enclosing=None):
    """Returns `node` with the SOURCE.md adjustments applied (a new tree; the input is left as it was)."""
    if isinstance(node, list):
        return [adjust(item, enclosing) for item in node]
    if not isinstance(node, dict):
        return node
    result = {}
    for key, value in node.items():
        if key == "$recursiveAnchor":
            continue
        if key == "$recursiveRef":
            result["$ref"] = f"#/components/schemas/{enclosing}" if enclosing else "#"
            continue
        if key == "oneOf":
            key = "anyOf"
        result[key] = adjust(value, enclosing)
    if result.get("nullable") is True:
        del result["nullable"]
        make_nullable(result)
    elif "nullable" in result and isinstance(result["nullable"], bool):
        del result["nullable"]
    for exclusive, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(result.get(exclusive), bool):
            if result[exclusive] and bound in result:
                result[exclusive] = result.pop(bound)
            else:
                del result[exclusive]
    properties = result.get("properties")
    if isinstance(result.get("required"), list) and isinstance(properties, dict):
        result["required"] = [
            name for name in result["required"]
            if not (isinstance(properties.get(name), dict) and "default" in properties[name])
        ]
    return result


def make_nullable(schema):
    kind = schema.get("type")
    if isinstance(kind, str):
        schema["type"] = [kind, "null"] if kind != "null" else kind
    elif isinstance(kind, list):
        if "null" not in kind:
            schema["type"] = kind + ["null"]
    else:
        # No type of its own ($ref, allOf, anyOf): allow null beside whatever it is.
        inner = {key: value for key, value in schema.items() if key not in ("description", "default", "title")}
        for key in list(inner):
            del schema[key]
        schema["anyOf"] = [inner, {"type": "null"}]
        return
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        schema["enum"] = schema["enum"] + [None]


def adjust_document(document):
    document = dict(document)
    components = dict(document.get("components", {}))
    schemas = components.get("schemas", {})
    components["schemas"] = {name: adjust(schema, enclosing=name) for name, schema in schemas.items()}
    document["components"] = components
    return document


class Spec:
    """The adjusted document, a registry over it, and one validator per request schema."""

    def __init__(self, path):
        self.document = adjust_document(load_document(path))
        self.schemas = self.document["components"]["schemas"]
        resource = Resource.from_contents(self.document, default_specification=DRAFT202012)
        self.registry = Registry().with_resource(DOCUMENT_URI, resource)
        self.validators = {}

    def validator(self, schema_name):
        if schema_name not in self.validators:
            root = {"$ref": f"{DOCUMENT_URI}#/components/schemas/{schema_name}"}
            self.validators[schema_name] = Draft202012Validator(root, registry=self.registry)
        return self.validators[schema_name]

    def resolve(self, schema):
        """Follows local `$ref`s until a schema without one."""
        seen = 0
        while isinstance(schema, dict) and "$ref" in schema and seen < 32:
            reference = schema["$ref"]
            if not reference.startswith("#/components/schemas/"):
                break
            schema = self.schemas.get(reference.rsplit("/", 1)[-1], {})
            seen += 1
        return schema

    def top_level_properties(self, schema):
        """Property name → schema, over the schema, its `allOf` members and their `$ref`s."""
        schema = self.resolve(schema)
        found = {}
        if not isinstance(schema, dict):
            return found
        for member in schema.get("allOf", []):
            found.update(self.top_level_properties(member))
        found.update(schema.get("properties", {}))
        return found


# MARK: - Checking one body


def json_path(parts):
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def schema_errors(spec, schema_name, body):
    errors = []
    for error in spec.validator(schema_name).iter_errors(body):
        detail = error
        if error.context:
            detail = best_match(error.context)
        path = json_path(list(detail.absolute_path))
        errors.append(f"{path}: {detail.message}")
    return errors


def closed_top_level_errors(spec, schema_name, body):
    if not isinstance(body, dict):
        return []
    allowed = spec.top_level_properties({"$ref": f"#/components/schemas/{schema_name}"})
    return [f"$.{key}: unknown top-level field (not in {schema_name})" for key in body if key not in allowed]


def is_reasoning_model(model):
    return isinstance(model, str) and (model.startswith("gpt-5") or re.match(r"^o\d", model) is not None)


def strict_schema_errors(schema, path):
    """Every object in a strict json_schema has `additionalProperties: false` and all its properties required."""
    errors = []
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            errors += strict_schema_errors(item, f"{path}[{index}]")
        return errors
    if not isinstance(schema, dict):
        return errors
    kind = schema.get("type")
    is_object = kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in schema
    if is_object:
        if schema.get("additionalProperties") is not False:
            errors.append(f"{path}: strict json_schema needs additionalProperties: false on every object")
        properties = schema.get("properties", {})
        missing = [name for name in properties if name not in schema.get("required", [])]
        if missing:
            errors.append(f"{path}: strict json_schema needs every property in required (missing {', '.join(missing)})")
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        if isinstance(schema.get(key), dict):
            for name, member in schema[key].items():
                errors += strict_schema_errors(member, f"{path}.{key}.{name}")
    for key in ("items", "additionalProperties", "not", "prefixItems", "anyOf", "oneOf", "allOf"):
        if key in schema and not isinstance(schema[key], bool):
            errors += strict_schema_errors(schema[key], f"{path}.{key}")
    return errors


def model_rule_errors(schema_name, body):
    if not isinstance(body, dict):
        return []
    errors = []
    model = body.get("model")
    if schema_name == "CreateChatCompletionRequest":
        if is_reasoning_model(model):
            if "max_tokens" in body:
                errors.append(f"$.max_tokens: {model} rejects max_tokens (use max_completion_tokens)")
            if "temperature" in body and body["temperature"] not in (None, 1):
                errors.append(f"$.temperature: {model} accepts only the default temperature (1)")
        format_ = body.get("response_format")
        if isinstance(format_, dict) and format_.get("type") == "json_schema":
            json_schema = format_.get("json_schema")
            name = json_schema.get("name") if isinstance(json_schema, dict) else None
            if isinstance(name, str) and not SCHEMA_NAME.fullmatch(name):
                errors.append("$.response_format.json_schema.name: must match ^[a-zA-Z0-9_-]{1,64}$ (as the spec's text says)")
            if isinstance(json_schema, dict) and json_schema.get("strict") is True:
                errors += strict_schema_errors(json_schema.get("schema"), "$.response_format.json_schema.schema")
    if schema_name in ("CreateImageRequest", "CreateImageEditRequest"):
        if isinstance(model, str) and model.startswith("gpt-image"):
            for field in ("response_format", "style"):
                if field in body:
                    errors.append(f"$.{field}: GPT image models ({model}) reject {field}")
        if model == "dall-e-3" and body.get("n", 1) != 1:
            errors.append("$.n: dall-e-3 needs n = 1")
    return errors


def coerce_form_fields(spec, schema_name, body):
    """Multipart text fields arrive as strings: convert those whose property is a number, integer or boolean."""
    if not isinstance(body, dict):
        return body
    properties = spec.top_level_properties({"$ref": f"#/components/schemas/{schema_name}"})
    result = dict(body)
    for key, value in body.items():
        if not isinstance(value, str) or key not in properties:
            continue
        types = property_types(spec, properties[key])
        if "integer" in types and re.fullmatch(r"-?\d+", value):
            result[key] = int(value)
        elif "number" in types and re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", value):
            result[key] = float(value)
        elif "boolean" in types and value in ("true", "false"):
            result[key] = value == "true"
    return result


def property_types(spec, schema):
    schema = spec.resolve(schema)
    if not isinstance(schema, dict):
        return set()
    kind = schema.get("type")
    types = {kind} if isinstance(kind, str) else set(kind or [])
    for key in ("anyOf", "allOf"):
        for member in schema.get(key, []):
            types |= property_types(spec, member)
    return types


def check_body(spec, endpoint, body):
    """The errors of one request body sent to `endpoint` (an ENDPOINT_SCHEMAS key); empty when valid."""
    schema_name = ENDPOINT_SCHEMAS[endpoint]
    if endpoint == "images.edits":
        body = coerce_form_fields(spec, schema_name, body)
    if not isinstance(body, dict):
        return ["$: the body is not a JSON object"]
    return (
        closed_top_level_errors(spec, schema_name, body)
        + schema_errors(spec, schema_name, body)
        + model_rule_errors(schema_name, body)
    )


def check_file(spec, path):
    match = FILE_NAME.match(path.name)
    if not match or match.group("endpoint") not in ENDPOINT_SCHEMAS:
        return [f"not a recorded request name (<n>-<endpoint>.json with endpoint one of {', '.join(ENDPOINT_SCHEMAS)})"]
    try:
        body = json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as error:
        return [f"$: not JSON ({error})"]
    return check_body(spec, match.group("endpoint"), body)


def validate_directory(spec, directory):
    files = sorted(path for path in Path(directory).iterdir() if path.suffix == ".json")
    passed = failed = 0
    for path in files:
        errors = check_file(spec, path)
        if errors:
            failed += 1
            print(f"{path.name}: FAIL: " + "; ".join(errors))
        else:
            passed += 1
            print(f"{path.name}: ok")
    if not files:
        print(f"no recorded requests in {directory}")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    return failed == 0


# MARK: - Self-test


def strict_schema(**overrides):
    schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["title", "scenes"],
        "properties": {
            "title": {"type": "string"},
            "scenes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["number", "content"],
                    "properties": {"number": {"type": "integer"}, "content": {"type": "string"}},
                },
            },
        },
    }
    schema.update(overrides)
    return schema


def chat(**overrides):
    body = {
        "model": "gpt-5",
        "messages": [
            {"role": "system", "content": "You write short, kind stories for children."},
            {"role": "user", "content": "A story about Mia, who is brave."},
        ],
        "response_format": {"type": "json_schema", "json_schema": {"name": "story", "strict": True, "schema": strict_schema()}},
        "safety_identifier": "3f2a9c",
        "max_completion_tokens": 4000,
    }
    body.update(overrides)
    return body


def without(body, *keys):
    return {key: value for key, value in body.items() if key not in keys}


SPEECH = {"model": "gpt-4o-mini-tts", "voice": "coral", "input": "Once upon a time.", "response_format": "mp3", "speed": 1.0,
          "instructions": "Speak warmly."}
IMAGE = {"model": "gpt-image-1", "prompt": "A brave fox in a forest", "size": "1024x1536", "quality": "high", "n": 1,
         "user": "3f2a9c"}
EDIT = {"model": "gpt-image-1", "prompt": "The hero in scene 2", "image": "<binary 70 bytes>", "size": "1536x1024",
        "quality": "medium", "n": "1", "user": "3f2a9c"}
MODERATION = {"model": "omni-moderation-latest", "input": "A friendly dragon."}
LOOSE_SCHEMA = strict_schema(additionalProperties=True)
NESTED_LOOSE = strict_schema()
NESTED_LOOSE["properties"]["scenes"]["items"] = without(NESTED_LOOSE["properties"]["scenes"]["items"], "additionalProperties")

#: (name, endpoint, body, expected valid)
SELF_TESTS = [
    ("chat: valid strict structured output on gpt-5", "chat.completions", chat(), True),
    ("chat: content parts and a developer message", "chat.completions",
     chat(messages=[{"role": "developer", "content": "Be kind."}, {"role": "user", "content": [{"type": "text", "text": "Hi"}]}]), True),
    ("chat: temperature 0.2 on gpt-4o is allowed", "chat.completions", chat(model="gpt-4o", temperature=0.2), True),
    ("chat: nullable fields sent as null", "chat.completions", chat(model="gpt-4o", temperature=None, stop=None, max_completion_tokens=None), True),
    ("chat: max_tokens on gpt-5", "chat.completions", chat(max_tokens=100), False),
    ("chat: max_tokens on o3", "chat.completions", chat(model="o3", max_tokens=100), False),
    ("chat: temperature 0.2 on gpt-5", "chat.completions", chat(temperature=0.2), False),
    ("chat: strict schema without additionalProperties: false", "chat.completions",
     chat(response_format={"type": "json_schema", "json_schema": {"name": "story", "strict": True, "schema": LOOSE_SCHEMA}}), False),
    ("chat: strict schema, nested object without additionalProperties", "chat.completions",
     chat(response_format={"type": "json_schema", "json_schema": {"name": "story", "strict": True, "schema": NESTED_LOOSE}}), False),
    ("chat: strict schema with a property not required", "chat.completions",
     chat(response_format={"type": "json_schema", "json_schema": {"name": "story", "strict": True,
                                                                  "schema": strict_schema(required=["title"])}}), False),
    ("chat: unknown top-level field", "chat.completions", chat(story_mode=True), False),
    ("chat: missing messages", "chat.completions", without(chat(), "messages"), False),
    ("chat: empty messages", "chat.completions", chat(messages=[]), False),
    ("chat: schema name with a space", "chat.completions",
     chat(response_format={"type": "json_schema", "json_schema": {"name": "my story", "strict": True, "schema": strict_schema()}}), False),
    ("chat: message with an unknown role", "chat.completions", chat(messages=[{"role": "narrator", "content": "x"}]), False),
    ("speech: valid", "audio.speech", SPEECH, True),
    ("speech: speed 5 is out of range", "audio.speech", dict(SPEECH, speed=5), False),
    ("speech: missing voice", "audio.speech", without(SPEECH, "voice"), False),
    ("speech: unknown top-level field", "audio.speech", dict(SPEECH, language="en"), False),
    ("images: valid gpt-image-1", "images.generations", IMAGE, True),
    ("images: valid dall-e-3 with style", "images.generations",
     {"model": "dall-e-3", "prompt": "A fox", "style": "vivid", "quality": "hd", "size": "1024x1792", "n": 1, "response_format": "b64_json"}, True),
    ("images: response_format on a GPT image model", "images.generations", dict(IMAGE, response_format="b64_json"), False),
    ("images: style on a GPT image model", "images.generations", dict(IMAGE, style="vivid"), False),
    ("images: dall-e-3 with n = 2", "images.generations", {"model": "dall-e-3", "prompt": "A fox", "n": 2}, False),
    ("images: missing prompt", "images.generations", without(IMAGE, "prompt"), False),
    ("images: unknown top-level field", "images.generations", dict(IMAGE, seed=3), False),
    ("edits: valid multipart fields", "images.edits", EDIT, True),
    ("edits: image array", "images.edits", dict(EDIT, image=["<binary 70 bytes>", "<binary 80 bytes>"]), True),
    ("edits: response_format on a GPT image model", "images.edits", dict(EDIT, response_format="b64_json"), False),
    ("edits: unknown top-level field", "images.edits", dict(EDIT, hero_generation_id="abc"), False),
    ("edits: n that is not a number", "images.edits", dict(EDIT, n="two"), False),
    ("edits: missing prompt", "images.edits", without(EDIT, "prompt"), False),
    ("moderations: valid", "moderations", MODERATION, True),
    ("moderations: array input", "moderations", dict(MODERATION, input=["a", "b"]), True),
    ("moderations: missing input", "moderations", without(MODERATION, "input"), False),
    ("moderations: unknown top-level field", "moderations", dict(MODERATION, user="x"), False),
]


def self_test(spec):
    passed = failed = 0
    for name, endpoint, body, expected_valid in SELF_TESTS:
        errors = check_body(spec, endpoint, body)
        valid = not errors
        if valid == expected_valid:
            passed += 1
            outcome = "valid" if valid else "rejected: " + errors[0]
            print(f"ok   {name} ({outcome})")
        else:
            failed += 1
            print(f"FAIL {name}: expected {'valid' if expected_valid else 'rejected'}, got "
                  + ("valid" if valid else "rejected: " + "; ".join(errors)))
    print(f"{passed} passed, {failed} failed")
    return failed == 0


def main(argv=None):
    parser = argparse.ArgumentParser(description="Validate recorded OpenAI request bodies against openapi.yaml.")
    parser.add_argument("directory", nargs="?", help="a directory of <n>-<endpoint>.json files")
    parser.add_argument("--spec", type=Path, default=None, help="the OpenAI openapi.yaml (default: $OPENAI_SPEC or ../shared/openai/openapi.yaml)")
    parser.add_argument("--self-test", action="store_true", help="validate built-in good and bad examples")
    arguments = parser.parse_args(argv)
    if not arguments.self_test and not arguments.directory:
        parser.error("give a directory, or --self-test")
    spec_path = arguments.spec or default_spec_path()
    if not spec_path.is_file():
        print(f"no OpenAI spec at {spec_path} (use --spec or OPENAI_SPEC)", file=sys.stderr)
        return 2
    spec = Spec(spec_path)
    if arguments.self_test:
        return 0 if self_test(spec) else 1
    if not Path(arguments.directory).is_dir():
        print(f"not a directory: {arguments.directory}", file=sys.stderr)
        return 2
    return 0 if validate_directory(spec, arguments.directory) else 1


if __name__ == "__main__":
    sys.exit(main())
