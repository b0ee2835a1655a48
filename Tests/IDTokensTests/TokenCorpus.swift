import IDTokens
import TestSupport

// The corpus. Unless a comment says otherwise, each token is:
//   header  {"alg":"RS256","kid":"test-primary-2048","typ":"JWT"}
//   payload {"iss":"https://securetoken.google.com/storygate-test","aud":"storygate-test",
//            "auth_time":1700000000,"user_id":"user-123","sub":"user-123","iat":1700000000,
//            "exp":1700003600,"firebase":{"identities":{},"sign_in_provider":"custom"}}
// signed RS256 with TestKeys.primary; verified at now = 1700000000 with a clock skew of 5 s.
// The comment on each case gives only what differs.
extension Corpus {
    static let claimCases: [TokenCase] = [
        // As above: valid.
        TokenCase("valid Firebase token", nil, build: payload()),
        // exp 1700003600.5, iat 1699999999.25: fractional times are numbers too.
        TokenCase("fractional times", nil, build: payload(setting: ["exp": "1700003600.5", "iat": "1699999999.25"])),
        // exp 1.7000036e9: exponent notation.
        TokenCase("exp in exponent notation", nil, build: payload(setting: ["exp": "1.7000036e9"])),
        // No auth_time (optional).
        TokenCase("auth_time absent", nil, build: payload(removing: ["auth_time"])),
        // Extra claims of every JSON type, incl. escapes and non-ASCII.
        TokenCase("extra claims of all types", nil, build: payload(setting: [
            "admin": "true", "n": "null", "tags": #"["a","b",{"c":[1,2.5e-3]}]"#, "name": #""J\u00e9r\u00f4me \"J\" \ud83d\ude00 \/""#,
        ])),

        // exp:
        // exp 1700000000 == now: still inside the skew.
        TokenCase("exp == now", nil, build: payload(setting: ["exp": "1700000000"])),
        // exp 1699999995.001: now < exp + skew by 1 ms.
        TokenCase("exp + skew just after now", nil, build: payload(setting: ["exp": "1699999995.001", "iat": "1699990000", "auth_time": "1699990000"])),
        // exp 1699999995: now == exp + skew, expired.
        TokenCase("exp + skew == now", .expired, build: payload(setting: ["exp": "1699999995", "iat": "1699990000"])),
        // exp 1699996400: an hour ago.
        TokenCase("expired an hour ago", .expired, build: payload(setting: ["exp": "1699996400", "iat": "1699992800"])),
        // exp 0.
        TokenCase("exp zero", .expired, build: payload(setting: ["exp": "0"])),
        // exp -1e300.
        TokenCase("exp hugely negative", .expired, build: payload(setting: ["exp": "-1e300"])),
        // No exp.
        TokenCase("exp missing", .malformed, build: payload(removing: ["exp"])),
        // exp "1700003600": a string.
        TokenCase("exp as string", .malformed, build: payload(setting: ["exp": #""1700003600""#])),
        // exp null.
        TokenCase("exp null", .malformed, build: payload(setting: ["exp": "null"])),
        // exp true.
        TokenCase("exp boolean", .malformed, build: payload(setting: ["exp": "true"])),
        // exp [1700003600].
        TokenCase("exp array", .malformed, build: payload(setting: ["exp": "[1700003600]"])),
        // exp {"t":1700003600}.
        TokenCase("exp object", .malformed, build: payload(setting: ["exp": #"{"t":1700003600}"#])),
        // exp 1e400: overflows to infinity, not a finite number.
        TokenCase("exp infinite", .malformed, build: payload(setting: ["exp": "1e400"])),

        // iat:
        // iat 1700000005 == now + skew.
        TokenCase("iat == now + skew", nil, build: payload(setting: ["iat": "1700000005"])),
        // iat 1700000005.001: just in the future beyond the skew.
        TokenCase("iat just in the future", .issuedInFuture, build: payload(setting: ["iat": "1700000005.001"])),
        // iat 1700003600: an hour ahead.
        TokenCase("iat an hour ahead", .issuedInFuture, build: payload(setting: ["iat": "1700003600", "exp": "1700007200"])),
        // No iat.
        TokenCase("iat missing", .malformed, build: payload(removing: ["iat"])),
        // iat "1700000000".
        TokenCase("iat as string", .malformed, build: payload(setting: ["iat": #""1700000000""#])),
        // iat null.
        TokenCase("iat null", .malformed, build: payload(setting: ["iat": "null"])),

        // auth_time:
        // auth_time 1700000005 == now + skew.
        TokenCase("auth_time == now + skew", nil, build: payload(setting: ["auth_time": "1700000005"])),
        // auth_time 1700000006.
        TokenCase("auth_time in the future", .authTimeInFuture, build: payload(setting: ["auth_time": "1700000006"])),
        // auth_time "1700000000".
        TokenCase("auth_time as string", .malformed, build: payload(setting: ["auth_time": #""1700000000""#])),
        // auth_time null.
        TokenCase("auth_time null", .malformed, build: payload(setting: ["auth_time": "null"])),

        // nbf:
        // nbf 1700000005 == now + skew.
        TokenCase("nbf == now + skew", nil, build: payload(setting: ["nbf": "1700000005"])),
        // nbf 1700000006.
        TokenCase("nbf in the future", .notYetValid, build: payload(setting: ["nbf": "1700000006"])),
        // nbf "soon".
        TokenCase("nbf as string", .malformed, build: payload(setting: ["nbf": #""soon""#])),

        // aud:
        // aud "storygate-prod": not a trusted project.
        TokenCase("aud another project", .wrongAudience, build: payload(setting: ["aud": #""storygate-prod""#])),
        // aud ["storygate-test"]: arrays are refused.
        TokenCase("aud as array", .wrongAudience, build: payload(setting: ["aud": #"["storygate-test"]"#])),
        // No aud.
        TokenCase("aud missing", .wrongAudience, build: payload(removing: ["aud"])),
        // aud 42.
        TokenCase("aud number", .wrongAudience, build: payload(setting: ["aud": "42"])),
        // aud "Storygate-Test": case matters.
        TokenCase("aud different case", .wrongAudience, build: payload(setting: ["aud": #""Storygate-Test""#])),
        // aud "storygate-keyless", iss to match: trusted project whose keys were never loaded.
        TokenCase("project without keys", .keysUnavailable, build: payload(setting: [
            "aud": #""storygate-keyless""#, "iss": #""https://securetoken.google.com/storygate-keyless""#,
        ])),
        // As above: valid, but the verifier is given no key set at all.
        TokenCase("no key set loaded", .keysUnavailable, keys: .none, build: payload()),

        // iss:
        // iss "https://securetoken.google.com/storygate-prod".
        TokenCase("iss another project", .wrongIssuer, build: payload(setting: ["iss": #""https://securetoken.google.com/storygate-prod""#])),
        // iss "https://securetoken.google.com/storygate-test/": trailing slash.
        TokenCase("iss trailing slash", .wrongIssuer, build: payload(setting: ["iss": #""https://securetoken.google.com/storygate-test/""#])),
        // iss "http://securetoken.google.com/storygate-test".
        TokenCase("iss over http", .wrongIssuer, build: payload(setting: ["iss": #""http://securetoken.google.com/storygate-test""#])),
        // No iss.
        TokenCase("iss missing", .wrongIssuer, build: payload(removing: ["iss"])),
        // iss ["https://securetoken.google.com/storygate-test"].
        TokenCase("iss as array", .wrongIssuer, build: payload(setting: ["iss": #"["https://securetoken.google.com/storygate-test"]"#])),
        // iss with its "/" escaped as "\/": the same string after unescaping, accepted.
        TokenCase("iss with escaped slashes", nil, build: payload(setting: ["iss": #""https:\/\/securetoken.google.com\/storygate-test""#])),

        // sub:
        // sub "".
        TokenCase("sub empty", .invalidSubject, build: payload(setting: ["sub": #""""#])),
        // sub of 128 "a".
        TokenCase("sub of 128 characters", nil, build: payload(setting: ["sub": "\"" + String(repeating: "a", count: 128) + "\""])),
        // sub of 129 "a".
        TokenCase("sub of 129 characters", .invalidSubject, build: payload(setting: ["sub": "\"" + String(repeating: "a", count: 129) + "\""])),
        // sub of 128 "é" (256 UTF-8 bytes): counted as 128 characters.
        TokenCase("sub of 128 non-ASCII characters", nil, build: payload(setting: ["sub": "\"" + String(repeating: "é", count: 128) + "\""])),
        // sub of 129 "é".
        TokenCase("sub of 129 non-ASCII characters", .invalidSubject, build: payload(setting: ["sub": "\"" + String(repeating: "é", count: 129) + "\""])),
        // No sub.
        TokenCase("sub missing", .invalidSubject, build: payload(removing: ["sub"])),
        // No sub, but "sub\u0000":"mallory": a name of four characters, not sub (RFC 7519 §4: exact names).
        TokenCase("sub missing, a sub NUL twin", .invalidSubject, build: payload(setting: ["sub\u{0}": #""mallory""#], removing: ["sub"])),
        // An expired exp and a valid "exp\u0000" twin: the twin is not exp.
        TokenCase("exp expired, an exp NUL twin", .expired, build: payload(setting: ["exp": "1699996400", "exp\u{0}": "1700003600"])),
        // sub 123.
        TokenCase("sub number", .invalidSubject, build: payload(setting: ["sub": "123"])),
        // sub null.
        TokenCase("sub null", .invalidSubject, build: payload(setting: ["sub": "null"])),
    ]
}
