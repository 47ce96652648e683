import CPCSC

/// The seam every PC/SC call goes through: the only place that names `SCard*` functions.
///
/// Tests inject a scripted implementation; the live one calls pcsc-lite.
protocol PCSCCalls: Sendable {
  func establishContext() -> Result<SCARDCONTEXT, PCSCError>
  func releaseContext(_ context: SCARDCONTEXT)
  func listReaders(_ context: SCARDCONTEXT) -> Result<[UInt8], PCSCError>
  func getStatusChange(_ context: SCARDCONTEXT, timeout: DWORD, states: inout [ReaderState]) -> PCSCError?
  func cancel(_ context: SCARDCONTEXT) -> PCSCError?
  func connect(_ context: SCARDCONTEXT, reader: String, share: DWORD, protocols: DWORD) -> Result<(SCARDHANDLE, DWORD), PCSCError>
  func reconnect(_ handle: SCARDHANDLE, share: DWORD, protocols: DWORD, initialization: DWORD) -> Result<DWORD, PCSCError>
  func disconnect(_ handle: SCARDHANDLE, disposition: DWORD) -> PCSCError?
  func transmit(_ handle: SCARDHANDLE, protocol: DWORD, command: [UInt8], capacity: Int) -> Result<[UInt8], PCSCError>
  func control(_ handle: SCARDHANDLE, code: DWORD, input: [UInt8], capacity: Int) -> Result<[UInt8], PCSCError>
  func status(_ handle: SCARDHANDLE) -> Result<(reader: String, state: DWORD, protocol: DWORD, atr: [UInt8]), PCSCError>
  func beginTransaction(_ handle: SCARDHANDLE) -> PCSCError?
  func endTransaction(_ handle: SCARDHANDLE, disposition: DWORD) -> PCSCError?
}

/// pcsc-lite itself.
struct LivePCSCCalls: PCSCCalls {
  func establishContext() -> Result<SCARDCONTEXT, PCSCError> {
    var context: SCARDCONTEXT = 0
    if let error = check(SCardEstablishContext(_SCARD_SCOPE_SYSTEM, nil, nil, &context)) { return .failure(error) }
    return .success(context)
  }

  func releaseContext(_ context: SCARDCONTEXT) { _ = SCardReleaseContext(context) }

  func listReaders(_ context: SCARDCONTEXT) -> Result<[UInt8], PCSCError> {
    var length: DWORD = 0
    if let error = check(SCardListReaders(context, nil, nil, &length)) { return .failure(error) }
    var buffer = [CChar](repeating: 0, count: Int(length))
    if let error = check(SCardListReaders(context, nil, &buffer, &length)) { return .failure(error) }
    return .success(buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) })
  }

  func getStatusChange(_ context: SCARDCONTEXT, timeout: DWORD, states: inout [ReaderState]) -> PCSCError? {
    // The C structures point at the reader names, which must outlive the call.
    let names = states.map { LibC.duplicateCString($0.reader) }
    defer { names.forEach { LibC.freeCString($0) } }
    var c = states.enumerated().map { index, state in
      var s = SCARD_READERSTATE()
      s.szReader = UnsafePointer(names[index])
      s.dwCurrentState = DWORD(state.currentState)
      return s
    }
    let code = SCardGetStatusChange(context, timeout, &c, DWORD(c.count))
    for index in states.indices {
      states[index].eventState = UInt32(truncatingIfNeeded: c[index].dwEventState)
      let count = min(Int(c[index].cbAtr), _MAX_ATR_SIZE)
      states[index].atr = withUnsafeBytes(of: c[index].rgbAtr) { Array($0.prefix(count)) }
    }
    return check(code)
  }

  func cancel(_ context: SCARDCONTEXT) -> PCSCError? { check(SCardCancel(context)) }

  func connect(_ context: SCARDCONTEXT, reader: String, share: DWORD, protocols: DWORD) -> Result<(SCARDHANDLE, DWORD), PCSCError> {
    var handle: SCARDHANDLE = 0
    var active: DWORD = 0
    if let error = check(SCardConnect(context, reader, share, protocols, &handle, &active)) { return .failure(error) }
    return .success((handle, active))
  }

  func reconnect(_ handle: SCARDHANDLE, share: DWORD, protocols: DWORD, initialization: DWORD) -> Result<DWORD, PCSCError> {
    var active: DWORD = 0
    if let error = check(SCardReconnect(handle, share, protocols, initialization, &active)) { return .failure(error) }
    return .success(active)
  }

  func disconnect(_ handle: SCARDHANDLE, disposition: DWORD) -> PCSCError? { check(SCardDisconnect(handle, disposition)) }

  func transmit(_ handle: SCARDHANDLE, protocol: DWORD, command: [UInt8], capacity: Int) -> Result<[UInt8], PCSCError> {
    var response = [UInt8](repeating: 0, count: capacity)
    var length = DWORD(capacity)
    let pci: UnsafePointer<SCARD_IO_REQUEST> = `protocol` == _SCARD_PROTOCOL_T0 ? CPCSC_pciT0()
      : `protocol` == _SCARD_PROTOCOL_RAW ? CPCSC_pciRaw() : CPCSC_pciT1()
    let code = SCardTransmit(handle, pci, command, DWORD(command.count), nil, &response, &length)
    if let error = check(code) { return .failure(error) }
    return .success(Array(response.prefix(min(Int(length), capacity))))
  }

  func control(_ handle: SCARDHANDLE, code: DWORD, input: [UInt8], capacity: Int) -> Result<[UInt8], PCSCError> {
    var response = [UInt8](repeating: 0, count: capacity)
    var returned: DWORD = 0
    let rc = SCardControl(handle, code, input, DWORD(input.count), &response, DWORD(capacity), &returned)
    if let error = check(rc) { return .failure(error) }
    return .success(Array(response.prefix(min(Int(returned), capacity))))
  }

  func status(_ handle: SCARDHANDLE) -> Result<(reader: String, state: DWORD, protocol: DWORD, atr: [UInt8]), PCSCError> {
    var name = [CChar](repeating: 0, count: 256)
    var nameLength = DWORD(name.count)
    var state: DWORD = 0
    var proto: DWORD = 0
    var atr = [UInt8](repeating: 0, count: _MAX_ATR_SIZE)
    var atrLength = DWORD(atr.count)
    let code = SCardStatus(handle, &name, &nameLength, &state, &proto, &atr, &atrLength)
    if let error = check(code) { return .failure(error) }
    let reader = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return .success((reader, state, proto, Array(atr.prefix(min(Int(atrLength), atr.count)))))
  }

  func beginTransaction(_ handle: SCARDHANDLE) -> PCSCError? { check(SCardBeginTransaction(handle)) }
  func endTransaction(_ handle: SCARDHANDLE, disposition: DWORD) -> PCSCError? { check(SCardEndTransaction(handle, disposition)) }
}
