// The one place that chooses the platform modules every jobrun module sees (they all import
// JobrunCore). FoundationEssentials, not Foundation: the binary then links neither the rest of
// Foundation nor ICU, whose loading every run would pay at start (docs/performance.md,
// "Start-up"). Darwin has no separate FoundationEssentials module.
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
