import Foundation
import StrataSQLite
import Testing

/// A seeded generator (SplitMix64): the same seed gives the same cases.
struct ValueRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &self)] }
}

/// What writing a value must do: read back as the given value (compared by the type's rule),
/// or throw before anything is written.
enum Stored<T> {
    case readsBack(T)
    case refused
}

/// The rules of the round-trip invariant, one per type: what a written value reads back as.
enum ValueRules {
    /// 0000-01-01 00:00:00.000 and 10000-01-01 00:00:00.000 UTC, in milliseconds since 1970.
    static let firstMillisecond: Int64 = -62_167_219_200_000
    static let endMillisecond: Int64 = 253_402_300_800_000

    /// `Date`'s text form (and the iso8601 strategy): the millisecond, years 0000...9999.
    static func dateText(_ date: Date) -> Stored<Date> {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        guard let total = Int64(exactly: ms), total >= firstMillisecond, total < endMillisecond else { return .refused }
        return .readsBack(Date(timeIntervalSince1970: Double(total) / 1000))
    }

    static func double(_ d: Double) -> Stored<Double> { d.isNaN ? .refused : .readsBack(d) }
    static func float(_ f: Float) -> Stored<Float> { f.isNaN ? .refused : .readsBack(f) }
    static func uint64(_ u: UInt64) -> Stored<UInt64> { u > UInt64(Int64.max) ? .refused : .readsBack(u) }
    static func uint(_ u: UInt) -> Stored<UInt> { u > UInt(Int64.max) ? .refused : .readsBack(u) }
    static func decimal(_ d: Decimal) -> Stored<Decimal> { d.isNaN ? .refused : .readsBack(d) }
    static func sqlValue(_ v: SQLValue) -> Stored<SQLValue> {
        if case .real(let d) = v, d.isNaN { return .refused }
        return .readsBack(v)
    }

    static func dateComponents(_ c: DateComponents) -> Stored<DateComponents> {
        var out = DateComponents()
        let hasDate = c.year != nil && c.month != nil && c.day != nil
        let hasTime = c.hour != nil && c.minute != nil
        guard hasDate || hasTime else { return .refused }
        if hasDate, let year = c.year, let month = c.month, let day = c.day {
            guard (0...9999).contains(year), (1...12).contains(month) else { return .refused }
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            guard (1...days).contains(day) else { return .refused }
            (out.year, out.month, out.day) = (year, month, day)
        }
        if hasTime, let hour = c.hour, let minute = c.minute {
            guard (0...23).contains(hour), (0...59).contains(minute) else { return .refused }
            (out.hour, out.minute) = (hour, minute)
            if let second = c.second {
                guard (0...59).contains(second) else { return .refused }
                out.second = second
                if let nanosecond = c.nanosecond {
                    guard (0..<1_000_000_000).contains(nanosecond) else { return .refused }
                    out.nanosecond = nanosecond / 1_000_000 * 1_000_000
                }
            }
        }
        if let zone = c.timeZone {
            let offset = zone.secondsFromGMT()
            let minutes = (abs(offset) / 3600) * 3600 + (abs(offset) / 60 % 60) * 60
            out.timeZone = TimeZone(secondsFromGMT: offset < 0 ? -minutes : minutes)
        }
        return .readsBack(out)
    }

    // Sameness: `==`, except where noted.

    /// IEEE `==` (so -0.0 may read back as 0.0, which SQLite stores as an integer in a REAL
    /// column), and the same bits for every other value.
    static func sameDouble(_ a: Double, _ b: Double) -> Bool { a == b && (a == 0 || a.bitPattern == b.bitPattern) }
    static func sameFloat(_ a: Float, _ b: Float) -> Bool { a == b && (a == 0 || a.bitPattern == b.bitPattern) }
    /// Byte for byte: `==` on strings ignores composed/decomposed differences.
    static func sameString(_ a: String, _ b: String) -> Bool { Array(a.utf8) == Array(b.utf8) }
    static func sameSQLValue(_ a: SQLValue, _ b: SQLValue) -> Bool {
        switch (a, b) {
        case (.text(let x), .text(let y)): return sameString(x, y)
        case (.real(let x), .real(let y)): return sameDouble(x, y)
        default: return a == b
        }
    }
    static func sameComponents(_ a: DateComponents, _ b: DateComponents) -> Bool {
        a.year == b.year && a.month == b.month && a.day == b.day && a.hour == b.hour && a.minute == b.minute
            && a.second == b.second && a.nanosecond == b.nanosecond
            && a.timeZone?.secondsFromGMT() == b.timeZone?.secondsFromGMT()
    }
}

/// Random and extreme values of every type.
enum ValueGenerators {
    static func int64(_ r: inout ValueRandom) -> Int64 {
        let extremes: [Int64] = [0, 1, -1, .max, .min, .max - 1, .min + 1, 1 << 53, -(1 << 53) - 1]
        return r.chance(0.3) ? r.pick(extremes) : Int64(bitPattern: r.next())
    }
    static func uint64(_ r: inout ValueRandom) -> UInt64 {
        let extremes: [UInt64] = [0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, .max]
        return r.chance(0.3) ? r.pick(extremes) : r.next() >> UInt64.random(in: 0...1, using: &r)
    }
    static func double(_ r: inout ValueRandom) -> Double {
        let extremes: [Double] = [
            0, -0.0, 1, -1, .infinity, -.infinity, .nan, .signalingNaN, -.nan, .leastNonzeroMagnitude,
            -.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .ulpOfOne, .pi, 9_007_199_254_740_991, 0x1p62, 0x1p63, -0x1p63, 0x1p64, 0.1, 0x1p-1040,
        ]
        if r.chance(0.4) { return r.pick(extremes) }
        return r.chance(0.5) ? Double(bitPattern: r.next()) : Double.random(in: -1e6...1e6, using: &r)
    }
    static func float(_ r: inout ValueRandom) -> Float {
        let extremes: [Float] = [
            0, -0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude, 0.1, 16_777_215,
        ]
        if r.chance(0.4) { return r.pick(extremes) }
        return Float(bitPattern: UInt32(truncatingIfNeeded: r.next()))
    }
    static func string(_ r: inout ValueRandom, long: Int = 70_000) -> String {
        let length = r.chance(0.05) ? Int.random(in: 1000...long, using: &r) : Int.random(in: 0...24, using: &r)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let scalar: Unicode.Scalar?
            switch Int.random(in: 0..<10, using: &r) {
            case 0: scalar = "\u{0}"
            case 1: scalar = r.pick(["'", "\"", "\\", "%", "\n", "\r", "\u{FEFF}", "\u{FFFD}", "\u{301}", "\u{200D}"])
            case 2: scalar = Unicode.Scalar(UInt32.random(in: 0x1F300...0x1FAFF, using: &r))
            case 3: scalar = Unicode.Scalar(UInt32.random(in: 0x80...0xD7FF, using: &r))
            case 4: scalar = Unicode.Scalar(UInt32.random(in: 0xE000...0x10FFFF, using: &r))
            default: scalar = Unicode.Scalar(UInt32.random(in: 0x20...0x7E, using: &r))
            }
            if let scalar { scalars.append(scalar) }
        }
        return String(scalars)
    }
    static func bytes(_ r: inout ValueRandom, long: Int = 1 << 20) -> [UInt8] {
        let length = r.chance(0.03) ? Int.random(in: 1...long, using: &r) : Int.random(in: 0...48, using: &r)
        return (0..<length).map { _ in UInt8(truncatingIfNeeded: r.next()) }
    }
    /// Dates from far before year 0 to far beyond 9999, the boundaries, and not numbers.
    static func date(_ r: inout ValueRandom) -> Date {
        let extremes: [Date] = [
            .distantPast, .distantFuture, Date(timeIntervalSince1970: 0),
            Date(timeIntervalSince1970: -62_167_219_200), Date(timeIntervalSince1970: -62_167_219_200.0005),
            Date(timeIntervalSince1970: -62_167_219_200.0004), Date(timeIntervalSince1970: 253_402_300_799.999),
            Date(timeIntervalSince1970: 253_402_300_799.9994), Date(timeIntervalSince1970: 253_402_300_799.9996),
            Date(timeIntervalSince1970: 253_402_300_800), Date(timeIntervalSince1970: 1e15),
            Date(timeIntervalSince1970: -1e15), Date(timeIntervalSince1970: 9.3e15), Date(timeIntervalSince1970: 1e300),
            Date(timeIntervalSinceReferenceDate: .infinity), Date(timeIntervalSinceReferenceDate: -.infinity),
            Date(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSinceReferenceDate: .leastNonzeroMagnitude),
        ]
        if r.chance(0.3) { return r.pick(extremes) }
        let scale = r.pick([1e6, 1e9, 1e10, 1e11, 2.6e11, 1e13, 1e16, 1e19])
        return Date(timeIntervalSince1970: Double.random(in: -scale...scale, using: &r))
    }
    static func decimal(_ r: inout ValueRandom) -> Decimal {
        let extremes: [Decimal] = [
            .nan, .greatestFiniteMagnitude, .leastFiniteMagnitude, .leastNonzeroMagnitude,
            -Decimal.leastNonzeroMagnitude,
            0, Decimal(string: "12.50") ?? 0, Decimal(string: "-0.000001") ?? 0, Decimal(UInt64.max),
            Decimal(Int64.min),
        ]
        if r.chance(0.3) { return r.pick(extremes) }
        return Decimal(
            sign: r.chance(0.5) ? .minus : .plus, exponent: Int.random(in: -128...127, using: &r),
            significand: Decimal(r.next() >> UInt64.random(in: 0...63, using: &r)))
    }
    static func uuid(_ r: inout ValueRandom) -> UUID {
        let a = r.next()
        let b = r.next()
        return withUnsafeBytes(of: (a, b)) { raw in
            var t: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &t) { $0.copyMemory(from: raw) }
            return UUID(uuid: t)
        }
    }
    static let urlSamples = [
        "https://example.com", "https://example.com/a%20b?q=1&r=%27x%27#frag", "file:///tmp/with%20space/%E2%9C%93",
        "http://[::1]:8080/p", "mailto:someone@example.com", "data:text/plain;base64,SGVsbG8=", "x:", "a/relative/path",
        "https://user:pa%3Ass@host.example:1/%00?%FF", "HTTPS://EXAMPLE.COM/UPPER", "ftp://h/'quoted'",
        "urn:isbn:0451450523",
        "https://例え.jp/パス", "https://example.com/?q=a b",
    ]
    static func url(_ r: inout ValueRandom) -> URL {
        if r.chance(0.5), let url = URL(string: r.pick(urlSamples)) { return url }
        let segment = string(&r).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "x"
        return URL(string: "https://example.com/" + segment) ?? URL(fileURLWithPath: "/")
    }
    static func dateComponents(_ r: inout ValueRandom) -> DateComponents {
        var c = DateComponents()
        let wild = r.chance(0.15)
        func value(_ range: ClosedRange<Int>, _ r: inout ValueRandom) -> Int {
            wild && r.chance(0.3)
                ? Int.random(in: (range.lowerBound - 3)...(range.upperBound + 3), using: &r)
                : Int.random(in: range, using: &r)
        }
        if r.chance(0.7) {
            c.year = wild && r.chance(0.3) ? r.pick([-1, 10000, 12345]) : Int.random(in: 0...9999, using: &r)
            c.month = value(1...12, &r)
            c.day = value(1...31, &r)  // February 30 is refused
        }
        if r.chance(0.7) {
            c.hour = value(0...23, &r)
            c.minute = value(0...59, &r)
            if r.chance(0.7) { c.second = value(0...59, &r) }
            if r.chance(0.5) { c.nanosecond = value(0...999_999_999, &r) }
        }
        if r.chance(0.2) { c.year = c.year ?? 2024 }  // a lone year: no date, no time
        if r.chance(0.3) {
            c.timeZone = TimeZone(secondsFromGMT: Int.random(in: -18...18, using: &r) * 900 + (r.chance(0.1) ? 7 : 0))
        }
        return c
    }
    static func sqlValue(_ r: inout ValueRandom) -> SQLValue {
        switch Int.random(in: 0..<5, using: &r) {
        case 0: .null
        case 1: .integer(int64(&r))
        case 2: .real(double(&r))
        case 3: .text(string(&r))
        default: .blob(bytes(&r))
        }
    }
}

enum SampleColor: String, Codable, SQLValueConvertible, CaseIterable {
    case red, green
    case blue = "blue 'quoted'"
}
enum SampleLevel: Int64, Codable, SQLValueConvertible, CaseIterable {
    case low = -9_223_372_036_854_775_808
    case high = 9_223_372_036_854_775_807
}

/// A record with a property of every type, and a `Date` and a `UUID` under every strategy.
struct EverySample: Codable, FetchableRecord, PersistableRecord {
    var id: Int64
    var int8: Int8, int16: Int16, int32: Int32, int64: Int64, int: Int
    var uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64, uint: UInt
    var float: Float, double: Double, bool: Bool
    var string: String, data: Data, bytes: [UInt8]
    var date: Date, dateISO: Date, dateReference: Date, date1970: Date, dateSeconds: Date, dateMilliseconds: Date
    var uuid: UUID, uuidUpper: UUID, uuidLower: UUID
    var url: URL, decimal: Decimal, components: DateComponents, color: SampleColor, level: SampleLevel
    var optionalDouble: Double?, optionalDate: Date?, json: [String: Int]

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        switch column {
        case "dateISO": .iso8601
        case "dateReference": .timeIntervalSinceReferenceDate
        case "date1970": .timeIntervalSince1970
        case "dateSeconds": .secondsSince1970
        case "dateMilliseconds": .millisecondsSince1970
        default: .deferredToDate
        }
    }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        switch column {
        case "dateISO": .iso8601
        case "dateReference": .timeIntervalSinceReferenceDate
        case "date1970", "dateSeconds": .timeIntervalSince1970
        case "dateMilliseconds": .millisecondsSince1970
        default: .deferredToDate
        }
    }
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
        switch column {
        case "uuidUpper": .uppercaseString
        case "uuidLower": .lowercaseString
        default: .deferredToUUID
        }
    }

    static let createTable = """
        CREATE TABLE everySample(
            id INTEGER PRIMARY KEY, int8 INTEGER, int16 INTEGER, int32 INTEGER, int64 INTEGER, int INTEGER,
            uint8 INTEGER, uint16, uint32, uint64 INTEGER, uint, float REAL, double REAL, bool BOOLEAN,
            string TEXT, data BLOB, bytes, date DATETIME, dateISO TEXT, dateReference REAL, date1970,
            dateSeconds INTEGER, dateMilliseconds INTEGER, uuid BLOB, uuidUpper TEXT, uuidLower,
            url TEXT, decimal TEXT, components, color TEXT, level, optionalDouble, optionalDate, json TEXT)
        """

    /// What each strategy keeps of a date (see `DatabaseDateEncodingStrategy`).
    static func kept(_ date: Date, column: String) -> Stored<Date> {
        let t = date.timeIntervalSince1970
        switch column {
        case "dateReference":
            return date.timeIntervalSinceReferenceDate.isNaN ? .refused : .readsBack(date)
        case "date1970":
            return t.isNaN ? .refused : .readsBack(Date(timeIntervalSince1970: t))
        case "dateSeconds":
            guard let s = Int64(exactly: t.rounded(.down)) else { return .refused }
            return .readsBack(Date(timeIntervalSince1970: Double(s)))
        case "dateMilliseconds":
            guard let ms = Int64(exactly: (t * 1000).rounded(.down)) else { return .refused }
            return .readsBack(Date(timeIntervalSince1970: Double(ms) / 1000))
        default:
            return ValueRules.dateText(date)
        }
    }

    /// A random sample; with probability `tame`, every field has a stored form.
    static func random(id: Int64, _ r: inout ValueRandom, tame: Bool) -> EverySample {
        func date(_ column: String, _ r: inout ValueRandom) -> Date {
            let d = ValueGenerators.date(&r)
            if tame, case .refused = kept(d, column: column) { return Date(timeIntervalSince1970: 1_700_000_000.5) }
            return d
        }
        let i = ValueGenerators.int64(&r)
        var u = ValueGenerators.uint64(&r)
        var v = ValueGenerators.uint64(&r)
        var d = ValueGenerators.double(&r)
        var f = ValueGenerators.float(&r)
        var decimal = ValueGenerators.decimal(&r)
        var components = ValueGenerators.dateComponents(&r)
        if tame {
            if u > UInt64(Int64.max) { u >>= 1 }
            if v > UInt64(Int64.max) { v >>= 1 }
            if d.isNaN { d = 0.5 }
            if f.isNaN { f = -0.5 }
            if decimal.isNaN { decimal = 1 }
            if case .refused = ValueRules.dateComponents(components) {
                components = DateComponents(hour: 9, minute: 30)
            }
        }
        let optionalDouble: Double? = r.chance(0.5) ? nil : ValueGenerators.double(&r)
        return EverySample(
            id: id, int8: Int8(truncatingIfNeeded: i), int16: Int16(truncatingIfNeeded: i),
            int32: Int32(truncatingIfNeeded: i), int64: i, int: Int(i), uint8: UInt8(truncatingIfNeeded: u),
            uint16: UInt16(truncatingIfNeeded: u), uint32: UInt32(truncatingIfNeeded: u), uint64: u, uint: UInt(v),
            float: f, double: d, bool: r.chance(0.5), string: ValueGenerators.string(&r, long: 4000),
            data: Data(ValueGenerators.bytes(&r, long: 8000)), bytes: ValueGenerators.bytes(&r, long: 8000),
            date: date("date", &r),
            dateISO: date("dateISO", &r), dateReference: date("dateReference", &r), date1970: date("date1970", &r),
            dateSeconds: date("dateSeconds", &r), dateMilliseconds: date("dateMilliseconds", &r),
            uuid: ValueGenerators.uuid(&r), uuidUpper: ValueGenerators.uuid(&r), uuidLower: ValueGenerators.uuid(&r),
            url: ValueGenerators.url(&r), decimal: decimal, components: components, color: r.pick(SampleColor.allCases),
            level: r.pick(SampleLevel.allCases),
            optionalDouble: tame && optionalDouble?.isNaN == true ? nil : optionalDouble,
            optionalDate: r.chance(0.5) ? nil : date("optionalDate", &r),
            json: [ValueGenerators.string(&r, long: 2000): Int.random(in: .min ... .max, using: &r)])
    }

    /// The sample as it must read back, or nil when writing it must throw; with the first column
    /// that has no stored form.
    func expected() -> (sample: EverySample?, refusedColumn: String?) {
        var out = self
        var refused: String?
        func keep<T>(_ stored: Stored<T>, _ column: String, _ set: (T) -> Void) {
            switch stored {
            case .readsBack(let value): set(value)
            case .refused: refused = refused ?? column
            }
        }
        keep(ValueRules.uint64(uint64), "uint64") { _ in }
        keep(ValueRules.uint(uint), "uint") { _ in }
        keep(ValueRules.float(float), "float") { _ in }
        keep(ValueRules.double(double), "double") { _ in }
        keep(EverySample.kept(date, column: "date"), "date") { out.date = $0 }
        keep(EverySample.kept(dateISO, column: "dateISO"), "dateISO") { out.dateISO = $0 }
        keep(EverySample.kept(dateReference, column: "dateReference"), "dateReference") { out.dateReference = $0 }
        keep(EverySample.kept(date1970, column: "date1970"), "date1970") { out.date1970 = $0 }
        keep(EverySample.kept(dateSeconds, column: "dateSeconds"), "dateSeconds") { out.dateSeconds = $0 }
        keep(EverySample.kept(dateMilliseconds, column: "dateMilliseconds"), "dateMilliseconds") {
            out.dateMilliseconds = $0
        }
        keep(ValueRules.decimal(decimal), "decimal") { _ in }
        keep(ValueRules.dateComponents(components), "components") { out.components = $0 }
        if let optionalDouble { keep(ValueRules.double(optionalDouble), "optionalDouble") { _ in } }
        if let optionalDate { keep(ValueRules.dateText(optionalDate), "optionalDate") { out.optionalDate = $0 } }
        return refused == nil ? (out, nil) : (nil, refused)
    }

    /// The first property that differs, or nil.
    func difference(from b: EverySample) -> String? {
        let a = self
        let checks: [(String, Bool)] = [
            ("id", a.id == b.id), ("int8", a.int8 == b.int8), ("int16", a.int16 == b.int16),
            ("int32", a.int32 == b.int32), ("int64", a.int64 == b.int64), ("int", a.int == b.int),
            ("uint8", a.uint8 == b.uint8), ("uint16", a.uint16 == b.uint16), ("uint32", a.uint32 == b.uint32),
            ("uint64", a.uint64 == b.uint64), ("uint", a.uint == b.uint),
            ("float", ValueRules.sameFloat(a.float, b.float)),
            ("double", ValueRules.sameDouble(a.double, b.double)), ("bool", a.bool == b.bool),
            ("string", ValueRules.sameString(a.string, b.string)), ("data", a.data == b.data),
            ("bytes", a.bytes == b.bytes),
            ("date", a.date == b.date), ("dateISO", a.dateISO == b.dateISO),
            ("dateReference", a.dateReference == b.dateReference),
            ("date1970", a.date1970 == b.date1970), ("dateSeconds", a.dateSeconds == b.dateSeconds),
            ("dateMilliseconds", a.dateMilliseconds == b.dateMilliseconds), ("uuid", a.uuid == b.uuid),
            ("uuidUpper", a.uuidUpper == b.uuidUpper), ("uuidLower", a.uuidLower == b.uuidLower),
            ("url", a.url == b.url), ("decimal", a.decimal == b.decimal),
            ("components", ValueRules.sameComponents(a.components, b.components)), ("color", a.color == b.color),
            ("level", a.level == b.level),
            (
                "optionalDouble",
                a.optionalDouble.map { x in b.optionalDouble.map { ValueRules.sameDouble(x, $0) } ?? false }
                    ?? (b.optionalDouble == nil)
            ),
            ("optionalDate", a.optionalDate == b.optionalDate), ("json", a.json == b.json),
        ]
        guard let name = checks.first(where: { !$0.1 })?.0 else { return nil }
        func field(_ sample: EverySample) -> String {
            let child = Mirror(reflecting: sample).children.first { $0.label == name }
            return child.map { RoundTripRun.describe($0.value) } ?? "?"
        }
        return "\(name): \(field(a)) vs \(field(b))"
    }
}

/// Writes values through every write path and reads them back through every read path.
final class RoundTripRun {
    let db: Database
    let seed: UInt64
    var random: ValueRandom
    private(set) var cases = 0
    private(set) var refusals = 0
    private(set) var failures: [String] = []

    init(seed: UInt64) throws {
        self.seed = seed
        random = ValueRandom(seed: seed)
        db = try Database(inMemory: Configuration())
    }

    func fail(_ message: String) {
        if failures.count < 25 { failures.append("seed \(seed), case \(cases): " + message) }
    }

    /// `value` in words; a date as its seconds since 1970 (`Date.description` traps for the
    /// farthest dates).
    static func describe(_ value: Any) -> String {
        if let date = value as? Date { return "Date(\(date.timeIntervalSince1970))" }
        if let date = value as? Date?, let date { return "Date(\(date.timeIntervalSince1970))" }
        return String(reflecting: value).prefix(300).description
    }

    /// Every row of `table`, as types and bytes.
    func snapshot(_ table: String) throws -> [Row] {
        try db.fetchAll(sql: "SELECT rowid, * FROM \"\(table)\" ORDER BY rowid").map { row in
            Row(
                columns: row.columns,
                values: row.values.map { value in
                    // NaN cannot be read; text and blobs compared by bytes.
                    if case .text(let s) = value { return .blob(Array(s.utf8)) }
                    return value
                })
        }
    }

    /// Writes `value` into `column` (a column with no type, or the type's own) through one of the
    /// write paths, and reads it back through one of the read paths.
    func check<T: SQLValueConvertible>(
        _ value: T, _ expected: Stored<T>, same: (T, T) -> Bool, column: String
    ) throws {
        cases += 1
        let path = cases % 5
        // A refusal must leave every byte of the table as it was (and change no row).
        var before: [Row]?
        if case .refused = expected { before = try snapshot("t") }
        let changesBefore = db.totalChanges
        do {
            switch path {
            case 0: try db.execute(sql: "INSERT INTO t(id, \(column)) VALUES (1, ?)", arguments: [value])
            case 1: try db.cachedStatement(sql: "INSERT INTO t(id, \(column)) VALUES (1, ?)").execute(value)
            case 2: try db.execute(literal: "INSERT INTO t(id, \(identifier: column)) VALUES (1, \(value))")
            case 3: try db.execute(sql: "UPDATE t SET \(column) = :value WHERE id = 0", arguments: ["value": value])
            default:
                let statement = try db.cachedStatement(sql: "INSERT INTO t(id, \(column)) VALUES (1, ?)")
                try statement.bind(value, at: 1)
                while try statement.step() {}
            }
        } catch let error as SQLiteError {
            guard case .refused = expected else {
                return fail("\(T.self) \(Self.describe(value)) refused on path \(path): \(error)")
            }
            refusals += 1
            if error.resultCode != .SQLITE_MISMATCH || !error.message.contains("parameter 1") {
                fail("\(T.self) \(Self.describe(value)): unclear refusal \(error)")
            }
            if try db.totalChanges != changesBefore || before == nil || snapshot("t") != before {
                fail("\(T.self) \(Self.describe(value)): the table changed on a refused write")
            }
            return
        }
        guard case .readsBack(let wanted) = expected else {
            return fail("\(T.self) \(Self.describe(value)) was written (path \(path)), but has no stored form")
        }
        let id = path == 3 ? 0 : 1
        let sql = "SELECT \(column) FROM t WHERE id = \(id)"
        let back: T?
        do {
            switch cases / 5 % 4 {
            case 0: back = try db.fetchValue(T.self, sql: sql)
            case 1: back = try db.fetchOne(sql: sql)?[0]
            case 2: back = try db.fetchColumn(T.self, sql: sql).first
            default: back = try db.fetchCursor(sql: sql).next()?[column]
            }
        } catch {
            return fail("\(T.self) \(Self.describe(value)) written (path \(path)) but not read back: \(error)")
        }
        if let back, !same(back, wanted) {
            fail(
                "\(T.self) \(Self.describe(value)) read back as \(Self.describe(back)), expected \(Self.describe(wanted)) "
                    + "(path \(path))")
        } else if back == nil, !(T.self is any ExpressibleByNilLiteral.Type) {
            fail("\(T.self) \(Self.describe(value)) read back as NULL (path \(path))")
        }
        try db.execute(sql: path == 3 ? "UPDATE t SET \(column) = 'kept' WHERE id = 0" : "DELETE FROM t WHERE id = 1")
    }
}

@Suite("Round-trip property: every value written reads back equal, or the write throws")
struct ValueRoundTripPropertyTests {
    static let seeds: [UInt64] = [1, 24, 2026]

    /// Each type: values in a column with no type (no conversion), and in a column of the
    /// type's natural affinity.
    @Test(arguments: seeds)
    func everySQLValueConvertibleType(seed: UInt64) throws {
        let run = try RoundTripRun(seed: seed)
        try run.db.execute(
            sql: """
                CREATE TABLE t(id INTEGER PRIMARY KEY, v, i INTEGER, r REAL, s TEXT, b BLOB);
                INSERT INTO t(id, v, i, r, s, b) VALUES (0, 'kept', 'kept', 'kept', 'kept', 'kept');
                """)
        var r = run.random
        let rounds = 60
        for _ in 0..<rounds {
            for column in ["v", "i"] {
                let i = ValueGenerators.int64(&r)
                try run.check(i, .readsBack(i), same: ==, column: column)
                try run.check(Int(i), .readsBack(Int(i)), same: ==, column: column)
                let i32 = Int32(truncatingIfNeeded: i)
                try run.check(i32, .readsBack(i32), same: ==, column: column)
                let i16 = Int16(truncatingIfNeeded: i)
                try run.check(i16, .readsBack(i16), same: ==, column: column)
                let i8 = Int8(truncatingIfNeeded: i)
                try run.check(i8, .readsBack(i8), same: ==, column: column)
                let u = ValueGenerators.uint64(&r)
                try run.check(u, ValueRules.uint64(u), same: ==, column: column)
                try run.check(UInt(u), ValueRules.uint(UInt(u)), same: ==, column: column)
                let u32 = UInt32(truncatingIfNeeded: u)
                try run.check(u32, .readsBack(u32), same: ==, column: column)
                let u16 = UInt16(truncatingIfNeeded: u)
                try run.check(u16, .readsBack(u16), same: ==, column: column)
                let u8 = UInt8(truncatingIfNeeded: u)
                try run.check(u8, .readsBack(u8), same: ==, column: column)
                let bool = r.chance(0.5)
                try run.check(bool, .readsBack(bool), same: ==, column: column)
                let level = r.pick(SampleLevel.allCases)
                try run.check(level, .readsBack(level), same: ==, column: column)
            }
            for column in ["v", "r"] {
                let d = ValueGenerators.double(&r)
                try run.check(d, ValueRules.double(d), same: ValueRules.sameDouble, column: column)
                let f = ValueGenerators.float(&r)
                try run.check(f, ValueRules.float(f), same: ValueRules.sameFloat, column: column)
                let optional: Double? = r.chance(0.3) ? nil : d
                try run.check(
                    optional, optional.map { ValueRules.double($0).map(Optional.some) } ?? .readsBack(nil),
                    same: { a, b in a.map { x in b.map { ValueRules.sameDouble(x, $0) } ?? false } ?? (b == nil) },
                    column: column)
            }
            for column in ["v", "s"] {
                let s = ValueGenerators.string(&r)
                try run.check(s, .readsBack(s), same: ValueRules.sameString, column: column)
                let date = ValueGenerators.date(&r)
                try run.check(date, ValueRules.dateText(date), same: ==, column: column)
                let decimal = ValueGenerators.decimal(&r)
                try run.check(decimal, ValueRules.decimal(decimal), same: ==, column: column)
                let url = ValueGenerators.url(&r)
                try run.check(
                    url, .readsBack(url), same: { $0.absoluteString == $1.absoluteString && $0 == $1 }, column: column)
                let components = ValueGenerators.dateComponents(&r)
                try run.check(
                    components, ValueRules.dateComponents(components), same: ValueRules.sameComponents, column: column)
                let color = r.pick(SampleColor.allCases)
                try run.check(color, .readsBack(color), same: ==, column: column)
            }
            for column in ["v", "b"] {
                let bytes = ValueGenerators.bytes(&r)
                try run.check(bytes, .readsBack(bytes), same: ==, column: column)
                try run.check(Data(bytes), .readsBack(Data(bytes)), same: ==, column: column)
                let uuid = ValueGenerators.uuid(&r)
                try run.check(uuid, .readsBack(uuid), same: ==, column: column)
            }
            let value = ValueGenerators.sqlValue(&r)
            try run.check(value, ValueRules.sqlValue(value), same: ValueRules.sameSQLValue, column: "v")
        }
        // Huge values, once.
        let huge = [UInt8](repeating: 0xA5, count: 8 << 20)
        try run.check(Data(huge), .readsBack(Data(huge)), same: ==, column: "v")
        let hugeText = String(repeating: "é\u{0}x", count: 1 << 20)
        try run.check(hugeText, .readsBack(hugeText), same: ValueRules.sameString, column: "s")
        print("round-trip property, seed \(seed): \(run.cases) values written and read back, \(run.refusals) refused")
        #expect(run.failures.isEmpty, "\(run.failures.joined(separator: "\n"))")
        #expect(run.cases > 2000)
    }

    /// Records: insert (and save) a random record, read it back by key and by a query (the fast
    /// path over many rows); update an existing record with random values. A record with a value
    /// that has no stored form throws an `EncodingError` naming the column, the table unchanged.
    @Test(arguments: seeds)
    func codableRecords(seed: UInt64) throws {
        // `EverySample`'s 34 properties make deep frames in debug builds: the run gets a thread
        // with a large stack (a cooperative thread's overflowed), and reports its findings here.
        let result = try onLargeStack { try Self.recordRun(seed: seed) }
        print("round-trip property, records, seed \(seed): \(result.cases) records checked, \(result.refusals) refused")
        #expect(result.failures.isEmpty, "\(result.failures.joined(separator: "\n"))")
        #expect(result.refusals > 10 && result.refusals < result.cases / 2, "\(result.refusals) of \(result.cases)")
    }

    struct RecordRunResult: Sendable {
        var cases = 0
        var refusals = 0
        var failures: [String] = []
    }

    static func recordRun(seed: UInt64) throws -> RecordRunResult {
        let run = try RoundTripRun(seed: seed)
        let db = run.db
        try db.execute(sql: EverySample.createTable)
        var r = run.random
        var result = RecordRunResult()
        func fail(_ message: String) {
            if result.failures.count < 25 { result.failures.append("seed \(seed): " + message) }
        }
        var stored: [Int64: EverySample] = [:]
        for n in 0..<300 {
            let existing = stored.keys.sorted()
            let isUpdate = !existing.isEmpty && r.chance(0.35)
            let id = isUpdate ? r.pick(existing) : Int64(n + 1)
            let sample = EverySample.random(id: id, &r, tame: r.chance(0.75))
            let (expected, refusedColumn) = sample.expected()
            // Every 25th write compares every byte of the table; all compare the change count.
            let before = n % 25 == 0 ? try run.snapshot("everySample") : nil
            let changesBefore = db.totalChanges
            result.cases += 1
            do {
                if isUpdate {
                    try sample.update(db)
                } else if n % 2 == 0 {
                    try sample.insert(db)
                } else {
                    try sample.save(db)
                }
            } catch let error as EncodingError {
                guard let refusedColumn else {
                    fail("sample \(id) refused: \(error)")
                    continue
                }
                result.refusals += 1
                let text = "\(error)"
                if !text.contains("EverySample: column \"") { fail("unclear refusal (\(refusedColumn)): \(text)") }
                if db.totalChanges != changesBefore { fail("sample \(id): a refused write changed rows") }
                if let before, try run.snapshot("everySample") != before {
                    fail("sample \(id): the table changed on a refused write")
                }
                continue
            }
            guard let expected else {
                fail("sample \(id) was written, but column \(refusedColumn ?? "?") has no stored form")
                continue
            }
            stored[id] = expected
            do {
                guard let back = try EverySample.fetchOne(db, key: id) else {
                    fail("sample \(id) not found")
                    continue
                }
                if let difference = back.difference(from: expected) {
                    fail("sample \(id) read back differs in " + difference)
                }
            } catch {
                fail("sample \(id) written but not read back: \(error)")
            }
        }
        // Every row at once, through the fetch loop's fast path.
        let all = try EverySample.fetchAll(db, sql: "SELECT * FROM everySample ORDER BY id")
        if all.map(\.id) != stored.keys.sorted() { fail("fetchAll: \(all.count) rows, \(stored.count) stored") }
        for sample in all {
            result.cases += 1
            if let expected = stored[sample.id], let difference = sample.difference(from: expected) {
                fail("fetchAll: sample \(sample.id) differs in " + difference)
            }
        }
        return result
    }
}

/// Runs `body` on a thread with a 64 MiB stack and waits for it (at most two minutes).
func onLargeStack<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
    let box = LockedBox<Result<T, any Error>>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.set(Result { try body() })
        done.signal()
    }
    thread.stackSize = 64 << 20
    thread.start()
    guard done.wait(timeout: .now() + 120) == .success, let result = box.get() else {
        throw CancellationError()
    }
    return try result.get()
}

final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    func set(_ newValue: T) { lock.withLock { value = newValue } }
    func get() -> T? { lock.withLock { value } }
}

extension Stored {
    func map<U>(_ transform: (T) -> U) -> Stored<U> {
        switch self {
        case .readsBack(let value): .readsBack(transform(value))
        case .refused: .refused
        }
    }
}
