@_exported import StrataMigrations
// Strata: safe schema evolution for SQLite. This umbrella module re-exports the libraries.
@_exported import StrataSQLite
@_exported import StrataSchema
