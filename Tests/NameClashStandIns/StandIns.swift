// Stand-ins for the top-level names that apps import beside Strata: SwiftUI, SwiftData,
// Foundation and the standard library's common ones (SwiftUI and SwiftData exist on Apple
// platforms only). A module of its own, like SwiftUI is: a clash between two imported modules is
// what makes `'View' is ambiguous for type lookup`; a test's own declarations would just shadow.

// SwiftUI
public protocol View {}
public struct Table: View { public init() {} }
public struct TableColumn: View { public init() {} }
public struct TableRow: View { public init() {} }
public struct Text: View { public init(_ text: String) {} }
public struct Section: View { public init() {} }
public struct Group: View { public init() {} }
public struct Transaction { public init() {} }
public struct Index { public init() {} }
public struct Trigger { public init() {} }
public struct ForEach: View { public init() {} }
public struct List: View { public init() {} }
public struct Binding { public init() {} }
public struct State { public init() {} }

// SwiftData
public final class Schema { public init() {} }
public struct Query { public init() {} }
public struct Attribute { public init() {} }
public struct Relationship { public init() {} }
public final class ModelContext { public init() {} }
public struct FetchDescriptor { public init() {} }
public struct Predicate { public init() {} }
