// The one place that chooses the platform modules every jobrun module sees (they all import
// JobrunCore). FoundationEssentials, not Foundation: the binary then links neither the rest of
// Foundation nor ICU (40 MB), which cost 6 ms at every start (`jobrun version`: 22 → 16 ms), a
// twentieth of a 600-file apply. Darwin has no separate FoundationEssentials module.
#if canImport(FoundationEssentials)
@_exported public import FoundationEssentials
#else
@_exported public import Foundation
#endif
#if canImport(Glibc)
@_exported public import Glibc
#elseif canImport(Musl)
@_exported public import Musl
#elseif canImport(Darwin)
@_exported public import Darwin
#endif
