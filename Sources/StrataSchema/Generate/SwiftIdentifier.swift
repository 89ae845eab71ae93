/// Swift identifiers for SQL names, for the generated query types (``DatabaseSchema/swiftSource(_:)``).
///
/// The rules, all deterministic (the same name always gives the same identifier):
/// - the name is split into words at every character that is not an ASCII letter or digit
///   (`created_at`, `created at` → `created`, `at`); a word keeps its inner case (`folderId`);
/// - a non-ASCII character becomes its own word `U` + its code point in hex (`café` → `cafU00E9`),
///   since the project's style allows only ASCII identifiers;
/// - types are UpperCamelCase (`note_tag` → `NoteTag`), members lowerCamelCase (`Created At` →
///   `createdAt`; a first word in capitals is lowercased whole: `URL` → `url`);
/// - a name with no letter or digit becomes `unnamed`, a leading digit gets a `_` prefix;
/// - a Swift keyword is written with backticks (`` `default` ``), except the few that cannot be
///   used as a member name even then (`self`, `Type`, `init`...), which get a `_` suffix.
///
/// Clashes after conversion are resolved by ``Namer``.
enum SwiftIdentifier {
    /// Keywords that need backticks to be a member or type name.
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "private",
        "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if",
        "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil",
        "self", "Self", "super", "throws", "true", "try", "_", "some", "any", "package",
    ]

    /// Names that cannot be a member even in backticks, or mean something else after a dot
    /// (`x.self`, `T.Type`): they get a `_` suffix.
    static let unusableMembers: Set<String> = [
        "self", "Self", "Type", "Protocol", "init", "deinit", "subscript", "super", "_",
    ]

    /// The words of `name` (see the type's documentation).
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        for scalar in name.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else {
                if !current.isEmpty { words.append(current) }
                current = ""
                if !scalar.isASCII { words.append("U" + hex(scalar.value)) }
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func capitalized(_ word: String) -> String {
        guard let first = word.first else { return word }
        return first.uppercased() + word.dropFirst()
    }

    /// `note_tag` → `NoteTag` (no backticks, no keyword handling: see ``typeName(_:)``).
    static func upperCamel(_ name: String) -> String {
        let joined = words(name).map(capitalized).joined()
        guard let first = joined.first else { return "Unnamed" }
        return first.isNumber ? "_" + joined : joined
    }

    /// `created_at` → `createdAt`, `URL` → `url` (no keyword handling: see ``memberName(_:)``).
    static func lowerCamel(_ name: String) -> String {
        let parts = words(name)
        guard let head = parts.first else { return "unnamed" }
        let lowered: String
        if head.allSatisfy({ $0.isUppercase || $0.isNumber }) {
            lowered = head.lowercased()
        } else {
            lowered = head.prefix(1).lowercased() + head.dropFirst()
        }
        let joined = lowered + parts.dropFirst().map(capitalized).joined()
        return joined.first?.isNumber == true ? "_" + joined : joined
    }

    /// The member identifier (property, case, static let) for the SQL name `name`, before
    /// clashes are resolved: ``lowerCamel(_:)``, with a `_` suffix for the names no backticks
    /// make usable.
    static func member(_ name: String) -> String {
        let converted = lowerCamel(name)
        return unusableMembers.contains(converted) ? converted + "_" : converted
    }

    /// The type identifier for the SQL name `name`, before clashes are resolved.
    static func type(_ name: String) -> String {
        let converted = upperCamel(name)
        return unusableMembers.contains(converted) ? converted + "_" : converted
    }

    /// An identifier as written in the source: backticks for keywords.
    static func spelled(_ identifier: String) -> String {
        keywords.contains(identifier) ? "`\(identifier)`" : identifier
    }

    /// `name` as the body of a Swift string literal: quotes, backslashes and control characters
    /// escaped, everything else as it is.
    static func literal(_ name: String) -> String {
        var out = "\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\0": out += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                    || scalar.properties.generalCategory == .lineSeparator
                    || scalar.properties.generalCategory == .paragraphSeparator
                {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// Hands out unique identifiers in one scope, deterministically: a name is taken as it is when
/// free, else with the smallest suffix `2`, `3`... that is free. Names given with ``reserve(_:)``
/// are never handed out.
struct Namer {
    private var taken: Set<String>

    init(reserved: Set<String> = []) {
        taken = reserved
    }

    mutating func reserve(_ name: String) {
        taken.insert(name)
    }

    func isTaken(_ name: String) -> Bool { taken.contains(name) }

    mutating func claim(_ name: String) -> String {
        var candidate = name
        var suffix = 2
        while taken.contains(candidate) {
            candidate = name + String(suffix)
            suffix += 1
        }
        taken.insert(candidate)
        return candidate
    }
}
