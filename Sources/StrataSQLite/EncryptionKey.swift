import CSQLite

/// The key of an encrypted database: a passphrase, or 32 raw key bytes, as SQLCipher takes them.
///
/// Strata links the system SQLite, which cannot encrypt. Encrypted databases need an
/// encryption-capable SQLite linked instead (SQLCipher, or SQLite3 Multiple Ciphers with its
/// SQLCipher-compatible cipher; see the article "Encryption"). Give the key through
/// ``Configuration/encryptionKey``, a closure called each time a connection opens, so the key
/// need not stay in memory between openings:
///
/// ```swift
/// var config = Configuration()
/// config.encryptionKey = { .passphrase(try Keychain.readPassphrase("app-db")) }
/// let db = try Database(path: "app.sqlite", configuration: config)
/// ```
///
/// A passphrase goes through the cipher's key derivation (SQLCipher 4: PBKDF2-HMAC-SHA512,
/// 256,000 iterations, a random salt stored in the file). Raw key bytes skip it: they are passed
/// to the library as SQLCipher's raw key literal `x'…'` (64 hexadecimal digits).
public struct EncryptionKey: Sendable {
    /// What `sqlite3_key_v2` receives.
    let material: [UInt8]
    /// "a passphrase" or "a raw key", for messages (never the key itself).
    let kind: String

    private init(material: [UInt8], kind: String) {
        self.material = material
        self.kind = kind
    }

    /// A passphrase (its UTF-8 bytes), derived into the key by the cipher.
    ///
    /// ```swift
    /// config.encryptionKey = { .passphrase("correct horse battery staple") }
    /// ```
    public static func passphrase(_ passphrase: String) -> EncryptionKey {
        EncryptionKey(material: Array(passphrase.utf8), kind: "a passphrase")
    }

    /// A passphrase given as bytes (for example read from a key file), derived by the cipher.
    ///
    /// ```swift
    /// config.encryptionKey = { .passphrase(bytes: try Data(contentsOf: keyFile)) }
    /// ```
    public static func passphrase<Bytes: Sequence<UInt8>>(bytes: Bytes) -> EncryptionKey {
        EncryptionKey(material: Array(bytes), kind: "a passphrase")
    }

    /// 32 raw key bytes (AES-256), used as they are, without key derivation. Opening fails with
    /// SQLITE_MISUSE when there are not exactly 32.
    ///
    /// ```swift
    /// config.encryptionKey = { .rawKey(try Keychain.readKeyBytes("app-db")) }
    /// ```
    public static func rawKey<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> EncryptionKey {
        let bytes = Array(bytes)
        let digits = Array("0123456789ABCDEF".utf8)
        var material = Array("x'".utf8)
        for byte in bytes {
            material.append(digits[Int(byte >> 4)])
            material.append(digits[Int(byte & 0x0F)])
        }
        material.append(UInt8(ascii: "'"))
        return EncryptionKey(material: bytes.count == 32 ? material : [], kind: "a raw key of \(bytes.count) bytes")
    }

    /// Throws SQLITE_MISUSE for a key no cipher accepts: empty (SQLite would keep the file in
    /// plaintext), or raw bytes that are not 32.
    func validate(_ path: String) throws {
        if material.isEmpty {
            let what = kind == "a passphrase" ? "the passphrase is empty" : "\(kind): a raw key is exactly 32 bytes"
            throw SQLiteError(
                resultCode: .SQLITE_MISUSE, message: "invalid encryption key (\(what)): \(path)", culprit: path)
        }
    }
}

/// The encryption entry points of SQLCipher and SQLite3 Multiple Ciphers, looked up at run time:
/// the system SQLite has none of them, and the same binary must run on it.
enum SQLiteEncryption {
    typealias KeyFunction = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeRawPointer?, Int32) -> Int32

    /// `sqlite3_key_v2(db, schema, key, length)`.
    static let key: KeyFunction? = resolve("sqlite3_key_v2")
    /// `sqlite3_rekey_v2(db, schema, key, length)`.
    static let rekey: KeyFunction? = resolve("sqlite3_rekey_v2")

    /// The entry point `name`, only when it comes from the library Strata's other SQLite calls
    /// go to: a key function of another SQLite loaded in the same process (SQLCipher beside the
    /// system SQLite, on Apple platforms' two-level namespace) would be handed a connection it
    /// does not own.
    private static func resolve(_ name: String) -> KeyFunction? {
        guard let address = strata_sqlite3_symbol(name),
            strata_sqlite3_symbol_is_from_linked_library(address) != 0
        else { return nil }
        return unsafeBitCast(address, to: KeyFunction.self)
    }

    /// True when the loaded SQLite can encrypt (it has `sqlite3_key_v2` and `sqlite3_rekey_v2`).
    static var isAvailable: Bool { key != nil && rekey != nil }

    /// The one-line error for a key asked of an SQLite that cannot encrypt.
    static func unavailableError(_ path: String) -> SQLiteError {
        SQLiteError(
            resultCode: .SQLITE_ERROR,
            message: "this SQLite (\(SQLiteVersion.runtime)) cannot encrypt databases: link an encryption-capable "
                + "SQLite instead of the system one (SQLCipher, or SQLite3 Multiple Ciphers built as libsqlite3; "
                + "see Strata's Encryption guide) to open an encrypted database; nothing was written: \(path)",
            culprit: path)
    }
}
