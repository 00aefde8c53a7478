import JobrunCore
public import JobrunConditions
import JobrunJSON

/// `jobrun conditions`: every condition discretionary work waits for, its value and its source.
public enum ConditionsReport {
    /// A line per condition, then whether discretionary work could run:
    ///
    ///     metered  unknown  no NetworkManager
    ///     power    ac       no power supply
    ///     busy     no       CPU pressure 3 % over the last minute, system
    ///     Discretionary work could run now.
    public static func text(_ c: Conditions) -> String {
        let readings = c.readings
        let nameWidth = readings.map(\.name.count).max() ?? 0
        let valueWidth = readings.map(\.value.count).max() ?? 0
        var out = ""
        for r in readings {
            out += pad(r.name, nameWidth) + "  " + pad(r.value, valueWidth) + "  " + r.source + "\n"
        }
        let bad = readings.filter(\.isBad).map(\.name)
        out +=
            bad.isEmpty
            ? "Discretionary work could run now.\n"
            : "Discretionary work would be deferred: \(bad.joined(separator: ", ")).\n"
        return out
    }

    /// Versioned (docs/policy.md): `conditions` in a fixed order, each with `name`, `value`,
    /// `source` and `defers`; `discretionary_work` is `run` or `deferred`.
    public static func json(_ c: Conditions, checkedAtMilliseconds: Int64) -> [UInt8] {
        var w = JSONWriter(pretty: true, reservingCapacity: 1_024)
        w.beginObject()
        w.key("format_version"); w.int(1)
        w.key("jobrun_version"); w.string(JobrunVersion.current)
        w.key("checked_at"); w.string(RFC3339.utc(milliseconds: checkedAtMilliseconds))
        w.key("checked_at_ms"); w.int(checkedAtMilliseconds)
        w.key("conditions")
        w.beginArray()
        for r in c.readings {
            w.beginObject()
            w.key("name"); w.string(r.name)
            w.key("value"); w.string(r.value)
            w.key("source"); w.string(r.source)
            w.key("defers"); w.bool(r.isBad)
            w.endObject()
        }
        w.endArray()
        w.key("discretionary_work"); w.string(c.allowDiscretionaryWork ? "run" : "deferred")
        w.endObject()
        return w.finish()
    }

    private static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
}
