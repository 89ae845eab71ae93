// Capability flags renamed to read as assertions (issue 12): each old spelling is a compile error
// that names the new one.

extension SQLiteCapabilities {
    @available(*, unavailable, renamed: "supportsRenameColumn")
    public var renameColumn: Bool { supportsRenameColumn }
    @available(*, unavailable, renamed: "supportsModernRenameTable")
    public var modernRenameTable: Bool { supportsModernRenameTable }
    @available(*, unavailable, renamed: "supportsDropColumn")
    public var dropColumn: Bool { supportsDropColumn }
    @available(*, unavailable, renamed: "supportsReturning")
    public var returning: Bool { supportsReturning }
    @available(*, unavailable, renamed: "supportsGeneratedColumns")
    public var generatedColumns: Bool { supportsGeneratedColumns }
    @available(*, unavailable, renamed: "supportsTableListPragma")
    public var tableListPragma: Bool { supportsTableListPragma }
    @available(*, unavailable, renamed: "supportsStrictTables")
    public var strictTables: Bool { supportsStrictTables }
    @available(*, unavailable, renamed: "supportsAlterConstraints")
    public var alterConstraints: Bool { supportsAlterConstraints }
}
