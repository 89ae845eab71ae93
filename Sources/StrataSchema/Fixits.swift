// Names that Strata used before they clashed with SwiftUI, SwiftData and Foundation (issue 12):
// each old spelling is a compile error that names the new one (Xcode offers the fix). They are
// unavailable, so they never take part in name lookup beside `import SwiftUI`.

@available(
    *, unavailable, renamed: "DatabaseSchema", message: "renamed so that it does not clash with SwiftData.Schema"
)
public typealias Schema = DatabaseSchema

@available(*, unavailable, renamed: "TableInfo", message: "renamed so that it does not clash with SwiftUI.Table")
public typealias Table = TableInfo

@available(
    *, unavailable, renamed: "IndexInfo", message: "renamed so that it does not clash with collection Index types"
)
public typealias Index = IndexInfo

@available(*, unavailable, renamed: "ViewInfo", message: "renamed so that it does not clash with SwiftUI.View")
public typealias View = ViewInfo

@available(*, unavailable, renamed: "TriggerInfo")
public typealias Trigger = TriggerInfo

extension TableInfo {
    @available(*, unavailable, renamed: "isWithoutRowID")
    public var withoutRowID: Bool { isWithoutRowID }
    @available(*, unavailable, renamed: "isStrict")
    public var strict: Bool { isStrict }
}

extension ColumnInfo {
    @available(*, unavailable, renamed: "isNotNull")
    public var notNull: Bool { isNotNull }
}

extension ForeignKeyInfo {
    @available(*, unavailable, renamed: "isDeferred")
    public var deferred: Bool { isDeferred }
}

extension IndexInfo {
    @available(*, unavailable, renamed: "isUnique")
    public var unique: Bool { isUnique }
    @available(*, unavailable, renamed: "isPartial")
    public var partial: Bool { isPartial }
}

extension CreateTableStatement {
    @available(*, unavailable, renamed: "isWithoutRowID")
    public var withoutRowID: Bool { isWithoutRowID }
    @available(*, unavailable, renamed: "isStrict")
    public var strict: Bool { isStrict }
}

extension ForeignKeyClause {
    @available(*, unavailable, renamed: "isDeferred")
    public var deferred: Bool { isDeferred }
}
