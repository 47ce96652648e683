/// The folder of Markdown files that help texts name (json-format.md, exit-codes.md...), as it
/// is where this program runs: `PREFIX/share/doc/nfctag` beside an installed `PREFIX/bin/nfctag`
/// (make install, the Debian package), or the `docs/` folder of the checkout a build tree is in.
enum DocumentationFolder {
  /// The folder for nfctag at `executable` (its real, absolute path), nil when none exists:
  /// `../share/doc/nfctag` from the program's folder, else the first `docs/` holding
  /// exit-codes.md in the program's folder or one above it (a build tree is
  /// `CHECKOUT/.build/TRIPLE/debug/nfctag`).
  /// - Parameter exists: whether a path exists (a test gives its own).
  static func find(executable: String?, exists: (String) -> Bool) -> String? {
    guard let executable, executable.hasPrefix("/") else { return nil }
    var folders = executable.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    folders.removeLast()  // the program's own name
    let path = { (parts: ArraySlice<String>) in "/" + parts.joined(separator: "/") }
    if !folders.isEmpty {
      let installed = path(folders.dropLast()).appendingComponents("share/doc/nfctag")
      if exists(installed) { return installed }
    }
    var depth = folders.count
    while depth >= 0 {
      let docs = path(folders.prefix(depth)).appendingComponents("docs")
      if exists(docs + "/exit-codes.md") { return docs }
      depth -= 1
    }
    return nil
  }

  /// The root help's sentence on the folder: `folder` when one was found, else where the
  /// package and make install put it.
  static func sentence(folder: String?) -> String {
    let files = "The documentation folder holds the Markdown files help texts name (json-format.md, "
      + "exit-codes.md, faults.md, tag-types.md, provisioning.md...): "
    guard let folder else {
      return files + "/usr/share/doc/nfctag from the Debian package (gzipped), PREFIX/share/doc/nfctag "
        + "after make install (PREFIX is /usr/local by default), docs in a source checkout."
    }
    return files + folder + "."
  }

  /// The sentence for this program: the folder found from `/proc/self/exe`; the installed places
  /// when none is found, and for `--experimental-dump-help` (what swift-argument-parser's
  /// generate-manual plugin reads to make the man page, which describes an installed nfctag).
  static func sentenceForThisProgram() -> String {
    if CommandLine.arguments.contains("--experimental-dump-help") { return sentence(folder: nil) }
    return sentence(folder: find(executable: ownPath(), exists: { access($0, F_OK) == 0 }))
  }

  /// This program's own file, symbolic links resolved; nil when `/proc/self/exe` cannot be read.
  private static func ownPath() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

private extension String {
  /// `self/components`, without a doubled slash after the root.
  func appendingComponents(_ components: String) -> String { (hasSuffix("/") ? self : self + "/") + components }
}
