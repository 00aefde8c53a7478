import Testing
@testable import JobrunOutcome

/// The command line in `run_start`: URLs keep scheme, host and path; userinfo, query and
/// fragment never show; everything else is as typed.
@Suite struct ArgumentRedactionTests {
    @Test(arguments: [
        ("site.yaml", "site.yaml"),
        ("--output", "--output"),
        ("./mirror?x", "./mirror?x"),
        ("https://cdn.example.com/a/b.yaml", "https://cdn.example.com/a/b.yaml"),
        ("https://u:pw@cdn.example.com/a?sig=s3cr3t&x=1", "https://<redacted>@cdn.example.com/a?<redacted>"),
        ("https://tok@cdn.example.com", "https://<redacted>@cdn.example.com"),
        ("http://h:8080?token=t", "http://h:8080?<redacted>"),
        ("--cacert=https://h/ca.pem#t0ken", "--cacert=https://h/ca.pem#<redacted>"),
        ("a=https://x/p,b=https://u:p@y/q", "a=https://x/p,b=https://<redacted>@y/q"),
        ("https://h/p?next=https://u:p@y/", "https://h/p?<redacted>"),
        ("https://a@b@h/p", "https://<redacted>@h/p"),
    ])
    func urlsLoseTheirSecrets(argument: String, shown: String) {
        #expect(ArgumentRedaction.redact(argument: argument) == shown)
    }

    @Test func everyArgumentIsKeptInOrder() {
        #expect(
            ArgumentRedaction.redact(["jobrun", "apply", "https://u:p@h/m.yaml?s=1", "-v"])
                == ["jobrun", "apply", "https://<redacted>@h/m.yaml?<redacted>", "-v"])
    }
}
