import Testing

@testable import JobrunTrust

/// ASCII-armored key blocks, as repositories publish their keys, made binary for gpgv.
@Suite struct ArmoredKeyTests {
    @Test func theBodyIsDecodedWithOrWithoutHeadersAndChecksum() {
        let armored = """
            -----BEGIN PGP PUBLIC KEY BLOCK-----
            Comment: made for a test

            AQIDBAUG
            BwgJ
            =ABCD
            -----END PGP PUBLIC KEY BLOCK-----

            """
        #expect(ArmoredKey.dearmor(Array(armored.utf8)) == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        let bare = "-----BEGIN PGP PUBLIC KEY BLOCK-----\r\nAQID\r\n-----END PGP PUBLIC KEY BLOCK-----\r\n"
        #expect(ArmoredKey.dearmor(Array(bare.utf8)) == [1, 2, 3])
    }

    @Test func binaryKeysAndBrokenArmorAreNotDearmored() {
        #expect(ArmoredKey.dearmor([0x99, 0x01, 0x0D]) == nil)
        #expect(ArmoredKey.dearmor(Array("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n!!!\n-----END PGP PUBLIC KEY BLOCK-----\n".utf8)) == nil)
        #expect(ArmoredKey.dearmor(Array("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n-----END PGP PUBLIC KEY BLOCK-----\n".utf8)) == nil)
    }

    @Test func onlyOneClearsignedMessageAndNothingAfterItIsAccepted() {
        let message = "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nSuite: stable\n-----BEGIN PGP SIGNATURE-----\n\niQ==\n-----END PGP SIGNATURE-----\n"
        #expect(ClearsignedText.problem(Array(message.utf8)) == nil)
        #expect(ClearsignedText.problem(Array(message.replacingOccurrences(of: "\n", with: "\r\n").utf8)) == nil)
        #expect(ClearsignedText.problem(Array(("Suite: evil\n" + message).utf8))?.hasPrefix("it does not start with") == true)
        #expect(ClearsignedText.problem(Array((message + message).utf8)) == "it holds more than one signed message")
        #expect(ClearsignedText.problem(Array((message + "Suite: evil\n").utf8)) == "text follows its signature")
        #expect(ClearsignedText.problem([0xA3, 0x01, 0x02]) != nil, "a binary OpenPGP message")
        #expect(ClearsignedText.problem(Array(message.dropLast(29).utf8)) == "its signature block is not closed with '-----END PGP SIGNATURE-----'")
    }
}
