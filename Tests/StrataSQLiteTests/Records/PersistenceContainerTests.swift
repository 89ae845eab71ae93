import Testing

@testable import StrataSQLite

/// Column names in a record's container compare the way SQLite compares them: ASCII letters
/// without regard to case, everything else exactly.
@Suite("Persistence container")
struct PersistenceContainerTests {
    @Test func columnNamesCompareLikeSQLite() {
        #expect(PersistenceContainer.equalIgnoringASCIICase("createdAt", "CREATEDAT"))
        #expect(PersistenceContainer.equalIgnoringASCIICase("a_b-1", "A_B-1"))
        #expect(!PersistenceContainer.equalIgnoringASCIICase("Äpfel", "äpfel"))  // SQLite tells these apart
        #expect(!PersistenceContainer.equalIgnoringASCIICase("a@", "a`"))  // 0x40 / 0x60 are not letters
        #expect(!PersistenceContainer.equalIgnoringASCIICase("title", "titles"))
    }
}
