/// What an error says when a key was given where it does not belong (on the command line, in
/// place of a file or variable name): every line that hides key material ends with it.
package let keyPlacementAdvice = "a key goes in a file or an environment variable, never on the command line"

/// True when `text` looks like key material rather than a file or variable name: hex digits
/// only, at least `minimumDigits` of them (8: an NTAG21x password; a MIFARE Classic key has 12,
/// an AES key 32), optionally after `0x` and with `:`, `-` or spaces between them.
package func looksLikeKeyMaterial(_ text: String, minimumDigits: Int = 8) -> Bool {
  var scalars = Substring(text).unicodeScalars[...]
  if scalars.starts(with: "0x".unicodeScalars) || scalars.starts(with: "0X".unicodeScalars) { scalars = scalars.dropFirst(2) }
  var digits = 0
  for scalar in scalars {
    if isHexDigit(scalar) {
      digits += 1
    } else if scalar != ":" && scalar != "-" && scalar != " " {
      return false
    }
  }
  return digits >= minimumDigits
}

/// `line` with every run of 32 or more hex digits (an AES-128 key is 32) replaced by
/// "(N hex digits, not shown)", and ``keyPlacementAdvice`` added once when anything was hidden.
/// Every line the tool prints on standard error goes through here (``CommandContext/say(_:)``,
/// the failure line, ArgumentParser's refusals, the console's warnings), so a key pasted
/// anywhere on the command line is never printed back. Shorter runs stay: UIDs (8 to 20
/// digits), pages and status words are what errors are about. Options that name where a
/// shorter secret is (a password, MIFARE Classic keys) hide their value themselves
/// (``secretSourceName(_:option:)``).
package func hidingKeyMaterial(_ line: String) -> String {
  var out = String.UnicodeScalarView()
  var run = String.UnicodeScalarView()
  var hidden = false
  func flush() {
    if run.count >= 32 {
      out.append(contentsOf: "(\(run.count) hex digits, not shown)".unicodeScalars)
      hidden = true
    } else {
      out.append(contentsOf: run)
    }
    run.removeAll()
  }
  for scalar in line.unicodeScalars {
    if isHexDigit(scalar) {
      run.append(scalar)
    } else {
      flush()
      out.append(scalar)
    }
  }
  flush()
  let text = String(out)
  guard hidden, !text.contains(keyPlacementAdvice) else { return text }
  return text + "; " + keyPlacementAdvice
}

/// How an error names the file or variable an option gave for a secret: the name as given
/// (sanitized), or, when it looks like a key itself (``looksLikeKeyMaterial(_:minimumDigits:)``),
/// "the value of OPTION", so that the key is not printed.
package func secretSourceName(_ value: String, option: String) -> String {
  if value == "-" { return "standard input" }
  return looksLikeKeyMaterial(value) ? "the value of \(option)" : sanitizeLine(value)
}

/// The refusal of a value that looks like a key where a file or variable name belongs (64).
/// - Parameters:
///   - option: the option given the value (`--meta-key-file`).
///   - alternative: the option of the other kind for the same secret (`--meta-key-env`).
package func misplacedKeyFailure(option: String, alternative: String?) -> CLIFailure {
  let isVariable = option.hasSuffix("-env")
  let (kind, other) = isVariable ? ("variable", "file") : ("file", "variable")
  let instead = alternative.map { ", or in a \(other) and give its name to \($0)" } ?? ""
  return CLIFailure(.secretOnCommandLine("the value of \(option) looks like a key (not shown), not a \(kind) name; \(keyPlacementAdvice): "
                                         + "put it in a \(kind) and give its name to \(option)\(instead)"))
}

/// Reads the secret file `path` given to `option` ("-": the context's standard input), or fails:
/// 64 when the file cannot be read and its name looks like a key (the key is not printed), 66
/// otherwise, naming the file.
package func readSecretInputOrFail(_ path: String, option: String, alternative: String?,
                                   in context: CommandContext) throws(CLIFailure) -> [UInt8] {
  guard let bytes = readInput(path, standardInput: context.inputDescriptor) else {
    if looksLikeKeyMaterial(path) { throw misplacedKeyFailure(option: option, alternative: alternative) }
    throw CLIFailure(.unreadableFile("cannot read \(inputName(sanitizeLine(path))) (\(option)): \(LibC.lastErrorText)"))
  }
  return bytes
}

/// The value of the secret variable `name` given to `option`, or fails with 64: a variable not
/// set (named, unless its name looks like a key: then the key is not printed).
package func secretVariableOrFail(_ name: String, option: String, alternative: String?, what: String,
                                  in context: CommandContext) throws(CLIFailure) -> String {
  if let value = context.environment(name) { return value }
  if looksLikeKeyMaterial(name) { throw misplacedKeyFailure(option: option, alternative: alternative) }
  throw CLIFailure(.invalidValue("the environment variable \(sanitizeLine(name)) (\(what), \(option)) is not set"))
}

/// A secret from the file or the variable a pair of options names (`--key-file`/`--key-env`),
/// with where it came from as an error may say it ("--key-file NAME": ``secretSourceName(_:option:)``);
/// nil when neither is given.
/// - Throws: as ``readSecretInputOrFail(_:option:alternative:in:)`` and
///   ``secretVariableOrFail(_:option:alternative:what:in:)``.
package func readSecret(file: String?, environment: String?, options: (file: String, env: String), what: String,
                        in context: CommandContext) throws(CLIFailure) -> (text: [UInt8], origin: String)? {
  if let file {
    let text = try readSecretInputOrFail(file, option: options.file, alternative: options.env, in: context)
    return (text, "\(options.file) \(secretSourceName(file, option: options.file))")
  }
  if let environment {
    let text = Array(try secretVariableOrFail(environment, option: options.env, alternative: options.file, what: what, in: context).utf8)
    return (text, "\(options.env) \(secretSourceName(environment, option: options.env))")
  }
  return nil
}

private func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
  switch scalar {
  case "0"..."9", "a"..."f", "A"..."F": return true
  default: return false
  }
}
