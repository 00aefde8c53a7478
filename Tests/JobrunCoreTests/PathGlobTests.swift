import JobrunCore
import Testing

/// `include:` and `exclude:` patterns on slice paths.
@Suite struct PathGlobTests {
    static func glob(_ pattern: String) throws -> PathGlob { try PathGlob(pattern) }

    @Test func aPatternWithoutASlashMatchesANameInAnyFolder() throws {
        let deb = try Self.glob("*.deb")
        #expect(deb.matches("a.deb") && deb.matches("pool/main/a/a_1.0_amd64.deb"))
        #expect(!deb.matches("a.deb.sig") && !deb.matches("pool/a.debs"))
        let one = try Self.glob("f?.[0-9]")
        #expect(one.matches("x/fa.7") && !one.matches("x/fab.7") && !one.matches("fa.x"))
    }

    @Test func aPatternWithASlashMatchesTheWholePath() throws {
        let pool = try Self.glob("pool/main/**/*.deb")
        #expect(pool.matches("pool/main/a.deb") && pool.matches("pool/main/a/b/c.deb"))
        #expect(!pool.matches("pool/contrib/a.deb") && !pool.matches("x/pool/main/a.deb"))
        let star = try Self.glob("dists/*/Release")
        #expect(star.matches("dists/bookworm/Release") && !star.matches("dists/a/b/Release"))
        let tail = try Self.glob("docs/**")
        #expect(tail.matches("docs/a") && tail.matches("docs/a/b") && !tail.matches("doc/a") && !tail.matches("docs"))
        let all = try Self.glob("**")
        #expect(all.matches("a") && all.matches("a/b/c"))
        let anywhere = try Self.glob("**/by-hash/**")
        #expect(anywhere.matches("main/binary-amd64/by-hash/SHA256/ab") && !anywhere.matches("main/by-hashes/x"))
    }

    @Test func setsEscapesAndStars() throws {
        #expect(try Self.glob("[!a-c]*").matches("dx") && !Self.glob("[!a-c]*").matches("bx"))
        #expect(try Self.glob("[]a]").matches("]") && Self.glob("a\\*b").matches("a*b") && !Self.glob("a\\*b").matches("axb"))
        #expect(try Self.glob("a*b*c").matches("aXXbYYbc") && !Self.glob("a*b*c").matches("aXXbYYb"))
        #expect(try Self.glob("*").matches("é") && Self.glob("?").matches("é"))
        // Slow backtracking stays linear: a long name against many stars.
        let long = String(repeating: "a", count: 10_000)
        #expect(try !Self.glob("*a*a*a*a*a*b").matches(long))
    }

    @Test func badPatternsSayWhereAndWhy() {
        for (pattern, offset) in [("", 0), ("a[bc", 1), ("x\\", 1), ("a//b", 2), ("a/", 2), ("[z-a]", 1), ("**/a/**/b/**/c/**/d/**", 0)] {
            #expect(throws: PathGlob.Problem.self, "\(pattern)") { try PathGlob(pattern) }
            #expect((try? PathGlob(pattern)) == nil)
            do {
                _ = try PathGlob(pattern)
            } catch {
                #expect(error.offset == offset, "\(pattern): \(error)")
            }
        }
    }
}
