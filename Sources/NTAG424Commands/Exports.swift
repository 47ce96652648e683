// The communication modes are EV2 secure messaging's, which the 424 DNA shares with DESFire
// EV2/EV3; a module that imports NTAG424Commands names them as before.
@_exported import EV2SecureMessaging
