import StrataSchema

extension Migration {
    /// The first statement of `sql` that would end the migration's transaction (`COMMIT`, `END`,
    /// `ROLLBACK` without `TO`), or nil. Run as they are, such a statement would commit half a
    /// migration without recording it in the ledger. `END` closing a trigger body is not one.
    ///
    /// ```swift
    /// Migration.transactionControlStatement(in: "CREATE TABLE a(x); COMMIT;")   // "COMMIT"
    /// ```
    static func transactionControlStatement(in sql: String) -> String? {
        let tokens = SQLTokenizer.tokenize(sql).filter { !$0.isTrivia }
        var atStart = true
        var statement = [SQLToken]()
        var inTriggerBody = false
        for (i, token) in tokens.enumerated() {
            if token.text == ";" {
                atStart = true
                if !inTriggerBody { statement = [] }
                continue
            }
            if atStart {
                atStart = false
                if inTriggerBody, token.isKeyword("END") {
                    inTriggerBody = false
                    continue
                }
                if !inTriggerBody {
                    let next = i + 1 < tokens.count ? tokens[i + 1] : nil
                    let rollbackTo = next.map { $0.isKeyword("TO") || $0.isKeyword("TRANSACTION") && i + 2 < tokens.count && tokens[i + 2].isKeyword("TO") } ?? false
                    if token.isKeyword("COMMIT") || token.isKeyword("END") || (token.isKeyword("ROLLBACK") && !rollbackTo) {
                        return token.text.uppercased()
                    }
                }
            }
            statement.append(token)
            if !inTriggerBody, token.isKeyword("BEGIN"), statement.first?.isKeyword("CREATE") == true,
                statement.contains(where: { $0.isKeyword("TRIGGER") })
            {
                inTriggerBody = true
                atStart = true
            }
        }
        return nil
    }
}
