import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: Measuring (in the child process)

/// Seconds taken by `body` (monotonic clock).
@inline(never)
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// The process's peak resident set size in bytes.
///
/// On Linux this is `VmHWM` of `/proc/self/status`, the high-water mark of this process's own
/// address space: `ru_maxrss` survives `execve`, and a child forked from a parent that had
/// just built a large database started from the parent's resident size (every contender then
/// reported the parent's peak). Elsewhere, and if `/proc` cannot be read, `getrusage`'s
/// `ru_maxrss`.
func peakResidentBytes() -> Int {
    #if os(Linux)
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kib = Int(line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
    {
        return kib * 1024
    }
    #endif
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    #if canImport(Darwin)
    return Int(usage.ru_maxrss)
    #else
    return Int(usage.ru_maxrss) * 1024
    #endif
}

/// What a child process reports for one contender: the timed repetitions and its peak memory.
struct Sample: Codable {
    var seconds: [Double]
    var peakBytes: Int
}

/// What a child job is given.
struct JobContext {
    /// Timed repetitions to run.
    var repetitions: Int
    /// Untimed repetitions first (to warm caches and code).
    var warmup: Int
    /// Where the template databases are, and where to put scratch files.
    var directory: String

    func path(_ name: String) -> String { directory + "/" + name }

    /// Runs `measure` warmup + repetitions times, keeping the last `repetitions` results.
    func collect(_ measure: () throws -> Double) rethrows -> [Double] {
        var results = [Double]()
        for i in 0..<(warmup + repetitions) {
            let seconds = try measure()
            if i >= warmup { results.append(seconds) }
        }
        return results
    }
}

/// Removes a database file and its WAL companions.
func removeDatabase(_ path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

/// A fresh copy of a template database (untimed setup of cases 3 and 4).
func copyDatabase(_ template: String, to path: String) throws {
    removeDatabase(path)
    try FileManager.default.copyItem(atPath: template, toPath: path)
}

// MARK: Running children (in the parent process)

/// Runs one job in a child process of this executable, so each contender's peak memory is its own.
func runChild(key: String, context: JobContext) throws -> Sample {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executablePath())
    process.arguments = [
        "--child", key, "--repetitions", "\(context.repetitions)", "--warmup", "\(context.warmup)",
        "--dir", context.directory,
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchError("\(key): child process failed with status \(process.terminationStatus)")
    }
    let text = String(decoding: data, as: UTF8.self)
    guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") }) else {
        throw BenchError("\(key): no result from the child process (output: \(text.prefix(200)))")
    }
    return try JSONDecoder().decode(Sample.self, from: Data(line.dropFirst("RESULT ".count).utf8))
}

func executablePath() -> String {
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
}

/// Prints the child's result line.
func reportChild(_ sample: Sample) throws {
    let data = try JSONEncoder().encode(sample)
    print("RESULT " + String(decoding: data, as: UTF8.self))
}

// MARK: Statistics and formatting

struct Summary {
    var median: Double
    var min: Double
    var max: Double
    var count: Int
    var peakBytes: Int

    init(_ sample: Sample) {
        let sorted = sample.seconds.sorted()
        count = sorted.count
        min = sorted.first ?? .nan
        max = sorted.last ?? .nan
        if sorted.isEmpty {
            median = .nan
        } else if sorted.count % 2 == 1 {
            median = sorted[sorted.count / 2]
        } else {
            median = (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        peakBytes = sample.peakBytes
    }
}

func formatDuration(_ seconds: Double) -> String {
    if seconds < 1e-3 { return String(format: "%.1f µs", seconds * 1e6) }
    if seconds < 1 { return String(format: "%.2f ms", seconds * 1e3) }
    return String(format: "%.3f s", seconds)
}

func formatBytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

func formatRatio(_ ratio: Double) -> String {
    if ratio < 0.01 { return String(format: "%.4f× (%.0f× faster)", ratio, 1 / ratio) }
    return ratio >= 100 ? String(format: "%.0f×", ratio) : String(format: "%.2f×", ratio)
}

/// The machine the run happened on, for the README.
func machineDescription(sqliteVersion: String) -> String {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
        cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") })
        .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
        ?? "unknown CPU"
    let memory = ProcessInfo.processInfo.physicalMemory / 1_073_741_824
    return "\(ProcessInfo.processInfo.activeProcessorCount) CPUs (nproc), \(model), \(memory) GiB RAM, "
        + "\(ProcessInfo.processInfo.operatingSystemVersionString), SQLite \(sqliteVersion)"
}
