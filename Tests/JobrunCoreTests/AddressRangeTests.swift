import JobrunCore
import Testing

/// Addresses and ranges, and the rule that keeps a catalog's URLs off the local network.
@Suite struct AddressRangeTests {
    static func address(_ text: String) -> [UInt8] { AddressRange.parse(text) ?? [] }

    @Test func rangesAreReadAndContainTheirAddresses() throws {
        let ten = try #require(AddressRange("10.0.0.0/8"))
        #expect(ten.contains(Self.address("10.200.1.2")) && !ten.contains(Self.address("11.0.0.1")))
        #expect(ten.description == "10.0.0.0/8" && AddressRange("127.0.0.1")?.description == "127.0.0.1")
        let ula = try #require(AddressRange("fd00::/8"))
        #expect(ula.contains(Self.address("fd12:3456::1")) && !ula.contains(Self.address("fe80::1")))
        #expect(AddressRange("172.16.0.0/12")?.contains(Self.address("172.31.255.255")) == true)
        #expect(AddressRange("172.16.0.0/12")?.contains(Self.address("172.32.0.0")) == false)
        for bad in ["", "10.0.0.0/33", "host.example", "10.0.0.0/-1", "::/129", "1.2.3.4/x"] { #expect(AddressRange(bad) == nil, "\(bad)") }
    }

    @Test func onlyPublicAddressesPassUnlessAllowed() throws {
        let rule = AddressRule(allowed: [])
        for refused in [
            "127.0.0.1", "169.254.169.254", "10.1.2.3", "192.168.1.1", "172.20.0.1", "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1",
            "64:ff9b::a9fe:a9fe",
        ] {
            #expect(rule.refusal(of: refused) != nil, "\(refused)")
        }
        for allowed in ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", "8.8.8.8", "2002:808:808::1", "64:ff9b::808:808"] {
            #expect(rule.refusal(of: allowed) == nil, "\(allowed)")
        }
        let named = AddressRule(allowed: [try #require(AddressRange("10.0.0.0/8")), try #require(AddressRange("127.0.0.1"))])
        #expect(named.refusal(of: "10.9.9.9") == nil && named.refusal(of: "127.0.0.1") == nil && named.refusal(of: "::ffff:127.0.0.1") == nil)
        #expect(named.refusal(of: "127.0.0.2")?.contains("not a public address") == true)
    }
}
