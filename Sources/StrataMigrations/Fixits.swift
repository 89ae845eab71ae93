// `MigrationError.kind`, renamed `code` when every error took one shape (`StrataError`, issue 14),
// is deprecated for every error type at once, beside the protocol (`StrataError.swift`).
