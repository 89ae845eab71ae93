// `MigrationError.kind` renamed `code` when every error took one shape (`StrataError`, issue 14):
// the old spellings still compile, with a warning whose fix-it writes the new name.

extension MigrationError {
    @available(*, deprecated, renamed: "Code")
    public typealias Kind = Code
    @available(*, deprecated, renamed: "code")
    public var kind: Code { code }
}
