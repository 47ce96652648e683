import ArgumentParser

/// The names of a SUN URL's query parameters (`sdm verify`, `sdm serve`): what `sdm setup` wrote
/// into the URL template, `p`, `c` and `enc` by default.
package struct SUNParameterOptions: ParsableArguments {
  @Option(help: ArgumentHelp("The query parameter holding encrypted PICCData.", valueName: "name"))
  package var piccParam = "p"
  @Option(help: ArgumentHelp("The query parameter holding the CMAC (SDMMAC).", valueName: "name"))
  package var macParam = "c"
  @Option(help: ArgumentHelp("The query parameter holding encrypted file data, when present.", valueName: "name"))
  package var encParam = "enc"

  package init() {}

  /// Each a parameter name, all different, and none of them one of `reserved` (`sdm serve`'s `url`).
  package func validate(reserved: [String]) throws {
    let names = [piccParam, macParam, encParam]
    guard names.allSatisfy({ !$0.isEmpty && !$0.contains("=") && !$0.contains("&") }) else {
      throw ValidationError("--picc-param, --mac-param and --enc-param take a parameter name (no '=' or '&').")
    }
    guard Set(names + reserved).count == names.count + reserved.count else {
      let others = reserved.map { "'\($0)'" }.joined(separator: ", ")
      throw ValidationError("--picc-param, --mac-param and --enc-param must differ" + (reserved.isEmpty ? "." : " from each other and from \(others)."))
    }
  }
}
