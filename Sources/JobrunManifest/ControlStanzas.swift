import JobrunCore

/// Debian's control-file syntax (deb822), as `Release` and `Packages` files use it: stanzas
/// separated by blank lines, each a run of `Name: value` fields, a field continued on lines that
/// start with a space or a tab. Pure, over bytes: a field's value is handed over as the bytes
/// after its colon, continuation lines included, and only the fields asked for are made into
/// strings.
struct ControlStanzas {
    /// One field as found: its name, its value's bytes (first line after `:` and its
    /// continuation lines, line feeds kept) and the line it starts on.
    struct Field {
        var name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        var line: Int
    }

    /// Calls `stanza` with each stanza's fields and the line it starts on; a line that is neither
    /// a field nor a continuation is reported at `file` and skipped. Stops early when `stanza`
    /// returns false.
    static func forEach(
        in bytes: [UInt8], file: String, diagnostics: inout DiagnosticCollector, _ stanza: (_ fields: [Field], _ line: Int) -> Bool
    ) {
        var fields: [Field] = []
        var stanzaLine = 0
        var line = 0
        var i = 0
        let n = bytes.count
        func flush() -> Bool {
            defer { fields.removeAll(keepingCapacity: true) }
            return fields.isEmpty || stanza(fields, stanzaLine)
        }
        while i < n {
            line += 1
            var end = i
            while end < n, bytes[end] != 0x0A { end += 1 }
            var lineEnd = end
            if lineEnd > i, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            defer { i = end + 1 }
            if lineEnd == i || bytes[i..<lineEnd].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                guard flush() else { return }
                continue
            }
            let first = bytes[i]
            if first == 0x20 || first == 0x09 {
                if fields.isEmpty {
                    diagnostics.error("a continuation line outside any field", at: SourceLocation(file: file, line: line, column: 1))
                } else {
                    fields[fields.count - 1].value = bytes[fields[fields.count - 1].value.startIndex..<lineEnd]
                }
                continue
            }
            if first == UInt8(ascii: "#") { continue }
            guard let colon = bytes[i..<lineEnd].firstIndex(of: UInt8(ascii: ":")), colon > i else {
                diagnostics.error("expected 'Field: value'", at: SourceLocation(file: file, line: line, column: 1))
                continue
            }
            if fields.isEmpty { stanzaLine = line }
            fields.append(Field(name: bytes[i..<colon], value: bytes[(colon + 1)..<lineEnd], line: line))
        }
        _ = flush()
    }

    /// `value` without the spaces and tabs around it (every line's, for a multi-line value).
    static func trimmed(_ value: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var v = value
        while let f = v.first, f == 0x20 || f == 0x09 || f == 0x0A || f == 0x0D { v = v.dropFirst() }
        while let l = v.last, l == 0x20 || l == 0x09 || l == 0x0A || l == 0x0D { v = v.dropLast() }
        return v
    }

    /// Field names compare without regard to ASCII case (deb822).
    static func isNamed(_ field: Field, _ name: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        guard field.name.count == expected.count else { return false }
        func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        for (a, b) in zip(field.name, expected) where lower(a) != lower(b) { return false }
        return true
    }

    /// `value`'s lines after the first (a multi-line field's entries), each trimmed, empty ones
    /// skipped, with their line numbers.
    static func lines(of field: Field) -> [(line: Int, text: ArraySlice<UInt8>)] {
        var result: [(Int, ArraySlice<UInt8>)] = []
        var line = field.line
        var start = field.value.startIndex
        let value = field.value
        for i in value.indices where value[i] == 0x0A {
            let piece = trimmed(value[start..<i])
            if line > field.line, !piece.isEmpty { result.append((line, piece)) }
            line += 1
            start = i + 1
        }
        let last = trimmed(value[start...])
        if line > field.line, !last.isEmpty { result.append((line, last)) }
        return result
    }
}
