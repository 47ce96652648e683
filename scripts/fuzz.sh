#!/usr/bin/env bash
# libFuzzer over every parser of untrusted input: NDEF and its JSON, and everything a tag or a
# reader sends (TLVs, CCs, the Type 3 attribute block, the Type 4 CC file, Type 5 system info,
# ATRs, BER objects, PN532 pseudo-APDUs, vpcd frames, and whole platforms against a hostile tag;
# the NTAG 424 DNA's answers, GetVersion, file settings, secure-messaging responses past the MAC,
# and SUN URLs; the MIFARE DESFire's answers to the host, the virtual DESFire's frames and image, and
# its EV1 secure messaging's checks over libcrypto).
#
# Usage: scripts/fuzz.sh [TARGET|all] [SECONDS]      (make fuzz FUZZ_SECONDS=60; make fuzz-ci: 30 s each)
#        FUZZ_RUNS=10000000 scripts/fuzz.sh [TARGET|all]  (a number of executions instead of a time:
#                                                  make fuzz FUZZ_RUNS=10000000 FUZZ_TARGET=tlv)
#        scripts/fuzz.sh list
#        scripts/fuzz.sh build [TARGET|all]            (only build the binaries)
# Each target is one Fuzz/<Name>Fuzz.swift; the targets whose sources overlap are compiled together
# with the sources of the modules they need into one module (their cross-module `import` lines
# dropped), with -sanitize=fuzzer,address: four binaries, .build-fuzz/_ndef, _ntag424, _ciphers and _tags,
# rebuilt only when a source changed; FUZZ_TARGET picks the entry point. Corpora live in
# .build-fuzz/<target>. FUZZ_JOBS targets run at once (default 2).
# Exits non-zero when any target finds a crash, a leak, an invariant failure or a hang (> 1 s).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS="ndef tlv cc type3-attributes type4-cc type5-sysinfo atr ber pn532 vpcd hostile-tag detection ntag424 ntag424-sm classic-mad classic-sector desfire desfire-card desfire-sm"

# The Fuzz/ file of a target.
entry() {
  case "$1" in
    ndef) echo Fuzz/NDEFFuzz.swift ;;
    tlv) echo Fuzz/TLVFuzz.swift ;;
    cc) echo Fuzz/CCFuzz.swift ;;
    type3-attributes) echo Fuzz/Type3AttributesFuzz.swift ;;
    type4-cc) echo Fuzz/Type4CCFuzz.swift ;;
    type5-sysinfo) echo Fuzz/Type5SystemInfoFuzz.swift ;;
    atr) echo Fuzz/ATRFuzz.swift ;;
    ber) echo Fuzz/BERFuzz.swift ;;
    pn532) echo Fuzz/PN532Fuzz.swift ;;
    vpcd) echo Fuzz/VPCDFuzz.swift ;;
    hostile-tag) echo Fuzz/HostileTagFuzz.swift ;;
    detection) echo Fuzz/DetectionFuzz.swift ;;
    ntag424) echo Fuzz/NTAG424Fuzz.swift ;;
    ntag424-sm) echo Fuzz/NTAG424SMFuzz.swift ;;
    classic-mad) echo Fuzz/ClassicMADFuzz.swift ;;
    classic-sector) echo Fuzz/ClassicSectorFuzz.swift ;;
    desfire) echo Fuzz/DESFireFuzz.swift ;;
    desfire-card) echo Fuzz/DESFireCardFuzz.swift ;;
    desfire-sm) echo Fuzz/DESFireSMFuzz.swift ;;
    *) echo "fuzz.sh: unknown target '$1' (targets: $TARGETS)" >&2; exit 64 ;;
  esac
}

# The sources a target is compiled with: module folders, or single files.
sources() {
  case "$1" in
    ndef) echo Sources/Hex Sources/NDEF Sources/NDEFJSON ;;
    tlv|type3-attributes|type4-cc|type5-sysinfo|hostile-tag|classic-mad|classic-sector) echo Sources/Hex Sources/Locking Sources/NFCTransport Sources/EV2SecureMessaging Sources/NTAG424Commands Sources/NFCTags ;;
    cc|desfire|desfire-card) echo Sources/Hex Sources/Locking Sources/NFCTransport Sources/EV2SecureMessaging Sources/NTAG424Commands Sources/NFCTags Sources/NFCEmulator ;;
    pn532) echo Sources/Hex Sources/Locking Sources/NFCTransport Sources/EV2SecureMessaging Sources/NTAG424Commands Sources/NFCTags Sources/NFCEmulator Sources/NFCReaders/ACR122ULinks.swift \
             Sources/NFCReaders/PartThreeType2Link.swift Sources/NFCReaders/APDUPassthroughLink.swift \
             Sources/NFCReaders/Type1Link.swift Sources/NFCReaders/Type5Link.swift Sources/NFCReaders/PartThreeLink.swift Sources/NFCReaders/TransparentSession.swift \
             Sources/NFCReaders/Platform.swift Fuzz/Support/HostileReader.swift ;;
    detection) echo Sources/Hex Sources/Locking Sources/NFCTransport Sources/EV2SecureMessaging Sources/NTAG424Commands Sources/NFCTags Sources/NFCReaders/TargetDetection.swift \
             Sources/NFCReaders/PartThreeATR.swift Sources/NFCReaders/ACR122ULinks.swift Sources/NFCReaders/PartThreeType2Link.swift \
             Sources/NFCReaders/APDUPassthroughLink.swift Sources/NFCReaders/ClassicLinks.swift Sources/NFCReaders/Type1Link.swift \
             Sources/NFCReaders/Type5Link.swift Sources/NFCReaders/PartThreeLink.swift Sources/NFCReaders/TransparentSession.swift Sources/NFCReaders/ReaderCapabilities.swift \
             Sources/NFCReaders/FeliCaLink.swift Sources/NFCReaders/SCMLinks.swift Sources/NFCReaders/Platform.swift Fuzz/Support/HostileReader.swift ;;
    vpcd) echo Sources/Hex Sources/Locking Sources/NFCTransport Sources/EV2SecureMessaging Sources/NTAG424Commands Sources/NFCTags Sources/NFCEmulator Sources/NFCEmulatorVPCD ;;
    atr) echo Sources/Hex Sources/Locking Sources/NFCTransport Sources/NFCReaders/PartThreeATR.swift ;;
    ber) echo Sources/Hex Sources/Locking Sources/NFCTransport ;;
    # The 424 DNA's parsers only: NTAG424Commands (the secure-messaging answers' decoding among
    # them), the shared EV2 secure messaging it names (no cipher of its own) and the SUN URL's,
    # which need no swift-crypto.
    ntag424|ntag424-sm) echo Sources/Hex Sources/EV2SecureMessaging Sources/NTAG424Commands Sources/NTAG424/SUNURL.swift ;;
    # DESFire's ciphers and EV1 secure messaging: the DESFire module over COpenSSL's C shim
    # (compiled with clang beside the Swift sources; libcrypto is loaded at the first use).
    desfire-sm) echo Sources/EV2SecureMessaging Sources/DESFire Sources/COpenSSL ;;
  esac
}

# The longest input: 4096 bytes where an input is one image or message; 1024 where it is a
# sequence of exchanges (each answer may stand for up to 1 KB), so that long runs do not slow down
# on ever longer sequences of the same few exchanges.
max_len() {
  case "$1" in
    pn532|vpcd|hostile-tag|detection|desfire) echo 1024 ;;
    tlv) echo 1088 ;;  # the header, then a data area of at most 31 + 255 × 4 bytes
    *) echo 4096 ;;
  esac
}

# Seeds: a few valid inputs per target.
seed() {
  local dir=$1
  case "$2" in
    ndef)
      printf '\xd1\x01\x0b\x54\x02\x65\x6e\x65\x6c\x65\x70\x68\x61\x6e\x74' > "$dir/text"
      printf '\xd1\x01\x0d\x55\x01example.com/' > "$dir/uri"
      printf '\xb5\x00\x02ab\x56\x00\x02cd' > "$dir/chunks"
      printf '{"records":[{"text":{"text":"Hi"}},{"uri":"https://a.org"}]}' > "$dir/json" ;;
    tlv)  # area start, end, reserved start, reserved length, message length, then the memory
      printf '\x00\x30\x00\x00\x05\x03\x09\xd1\x01\x05\x54\x02\x65\x6e\x68\x69\xfe' > "$dir/ndef"
      printf '\x00\x40\x00\x00\x03\x01\x03\xa0\x0c\x34\x03\x00\xfe' > "$dir/lock"
      printf '\x00\x40\x20\x08\x10\x00\x00\xfd\x02\xab\xcd\x03\xff\x00\x04abcd\xfe' > "$dir/long" ;;
    cc)  # kind index and operation, overlay offset and link, then bytes laid over the factory image
      local op
      for op in 0 1 2 3 4; do  # status and read, info, dump, verified write, all of them
        printf "\\x${op}4"'\x0c\xe1\x10\x3e\x00\x03\x00\xfe' > "$dir/ntag215-$op"
        printf "\\x${op}1"'\x08\xe1\x10\x3f\x00\x03\x00\xfe' > "$dir/topaz512-$op"
        printf "\\x${op}0"'\x09\xe1\x10\x0e\x00\x03\x00\xfe' > "$dir/topaz96-$op"
        printf "\\x${op}b"'\x00\xe1\x40\x28\x01\x03\x00\xfe' > "$dir/slix2-$op"
      done ;;
    type3-attributes)
      printf '\x10\x04\x01\x00\x0d\x00\x00\x00\x00\x00\x01\x00\x00\x10\x00\x33' > "$dir/lite-s" ;;
    type4-cc)
      printf '\x00\x0f\x20\x00\x3b\x00\x34\x04\x06\xe1\x04\x08\x00\x00\x00' > "$dir/v2"
      printf '\x00\x11\x30\x00\xff\x00\xff\x06\x08\xe1\x04\x00\x01\x00\x00\x00\x00' > "$dir/v3" ;;
    type5-sysinfo)
      printf '\x0f\x01\x02\x03\x04\x05\x01\x04\xe0\x00\x00\x4f\x03\x01' > "$dir/slix2"
      printf '\x00\x01\x02\x03\x04\x05\x06\x07\xe0' > "$dir/bare" ;;
    atr)
      printf '\x3b\x8f\x80\x01\x80\x4f\x0c\xa0\x00\x00\x03\x06\x03\x00\x03\x00\x00\x00\x00\x68' > "$dir/ultralight"
      printf '\x3b\x81\x80\x01\x80\x80' > "$dir/isodep" ;;
    ber)
      printf '\xff\x6d\x03\x5f\x46\x00\x80\x81\x02\xab\xcd\x82\x00\x01\x00' > "$dir/session" ;;
    pn532)  # face and tag, then length-prefixed pseudo-APDUs
      printf '\x01\x05\xff\xca\x00\x00\x00\x07\xff\x00\x00\x00\x02\xd4\x4a\x09\xff\x00\x00\x00\x04\xd4\x42\x30\x04' > "$dir/acr122u-ntag215"
      printf '\x49\x05\xff\xca\x00\x00\x00\x05\xff\xb0\x00\x04\x10' > "$dir/part3-slix2"
      # Reader side: ACR122U Type 2 link; READ answers D5 43 00 + 16 bytes.
      printf '\x81\x53\xd5\x61\x00\x00\x04\x04\x02\x01\x00\x11\x03\x53\xd5\x43\x00\x04\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\xe1\x10\x3e\x00' > "$dir/reader-type2" ;;
    vpcd)
      printf '\x01\x00\x01\x01\x00\x01\x04\x00\x05\xff\xca\x00\x00\x00\x00\x05\xff\xb0\x00\x04\x10\x00' > "$dir/session" ;;
    detection)  # ATR length and ATR (or a known ATR), then the reader's answers (see the target)
      # ACR122U, NTAG215: GET_VERSION by direct transmit, GET DATA, a READ of pages 0-3.
      printf '\x20\x4b\xd5\x43\x00\x00\x04\x04\x02\x01\x00\x11\x03\x47\x04\x01\x02\x03\x04\x05\x06\x53\xd5\x43\x00\x04\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\xe1\x10\x3e\x00' > "$dir/acr122u-ntag215"
      # Part 3 reader, Type 4 card (ATR given): no firmware, GET DATA, SELECT answers.
      printf '\x06\x3b\x81\x80\x01\x80\x80\x02\x6a\x81\x47\x04\x01\x02\x03\x04\x05\x06\x80\x80\x4f\x00\x0f\x20\x00\x3b\x00\x34\x04\x06\xe1\x04\x00\x32\x00\x00' > "$dir/part3-type4"
      # ACR122U, FeliCa: firmware, GET DATA, the polling answer.
      printf '\x60\x0aACR122U207\x48\x01\x02\x03\x04\x05\x06\x07\x08\x54\xd5\x4b\x01\x01\x12\x01\x01\x02\x03\x04\x05\x06\x07\x08\x00\xf1\x00\x00\x00\x01\x43\x00\x88\xb4' > "$dir/acr122u-felica" ;;
    ntag424)  # selector (0 file settings, 1 GetVersion, 2 small answers, 3 SUN URL, 4 URL at offsets), then the bytes
      printf '\x00\x00\x40\xee\xee\x00\x01\x00\xd1\xfe\x00\x1f\x00\x00\x44\x00\x00\x44\x00\x00\x20\x00\x00\x6a\x00\x00' > "$dir/settings"
      printf '\x01\x04\x04\x02\x30\x00\x11\x05\x04\x04\x02\x01\x02\x11\x05\x04\x11\x22\x33\x44\x55\x66\xa1\xb2\xc3\xd4\xe0\x21\x24' > "$dir/version"
      printf '\x03https://ntag.nxp.com/424?p=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086' > "$dir/sun" ;;
    ntag424-sm)  # mode, MAC policy and parser; CmdCtr; ReadData length; then frames (length, bytes)
      # GetVersion in Plain: three frames, 91 AF twice.
      printf '\x00\x01\x00\x00\x09\x04\x04\x02\x30\x00\x11\x05\x91\xaf\x09\x04\x04\x02\x01\x02\x11\x05\x91\xaf\x10\x04\x11\x22\x33\x44\x55\x66\xa1\xb2\xc3\xd4\xe0\x21\x24\x91\x00' > "$dir/version-plain"
      # GetKeyVersion in MAC mode: KeyVer, MACt, 91 00.
      printf '\x19\x02\x00\x00\x0b\x01\x00\x00\x00\x00\x00\x00\x00\x00\x91\x00' > "$dir/keyversion-mac"
      # GetCardUID in Full mode: one block (UID, 80, zeros), MACt, 91 00.
      printf '\x12\x03\x00\x00\x1a\x04\x11\x22\x33\x44\x55\x66\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x91\x00' > "$dir/carduid-full"
      # ReadData of 4 bytes in MAC mode.
      printf '\x31\x04\x00\x04\x0e\x00\x1f\xd1\x01\x00\x00\x00\x00\x00\x00\x00\x00\x91\x00' > "$dir/readdata-mac" ;;
    classic-mad)  # chip selector, then the .mfd image: an NFC-formatted 1K's sector 0 and an empty NDEF TLV
      { printf '\x01'; head -c 16 /dev/zero
        printf '\x14\x01\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1\x03\xe1'
        printf '\xa0\xa1\xa2\xa3\xa4\xa5\x78\x77\x88\xc1\xff\xff\xff\xff\xff\xff'
        printf '\x03\x0c\xd1\x01\x08\x54\x02\x65\x6e\x63\x61\x72\x64\x31\xfe\x00'; } > "$dir/ndef-1k" ;;
    classic-sector)  # blocks, the last one the trailer: a value block, then an NFC sector trailer
      { printf '\x2a\x00\x00\x00\xd5\xff\xff\xff\x2a\x00\x00\x00\x05\xfa\x05\xfa'
        printf '\xd3\xf7\xd3\xf7\xd3\xf7\x7f\x07\x88\x40\xff\xff\xff\xff\xff\xff'; } > "$dir/value-ndef-trailer" ;;
    desfire)  # part, then the bytes or a command and the card's answers (see the target)
      printf '\x00\x04\x01\x01\x01\x00\x18\x05\x04\x01\x01\x01\x04\x18\x05\x04\x3a\x61\x2c\x5e\x73\x80\xba\x00\x00\x00\x00\x20\x13' > "$dir/version"
      printf '\x01\x0f\x81' > "$dir/key-settings"
      # GetVersion in three frames; GetApplicationIDs in two; ReadData of 16 bytes.
      printf '\x03\x00\x47\x04\x01\x01\x01\x00\x18\x05\x47\x04\x01\x01\x01\x04\x18\x05\x0e\x04\x3a\x61\x2c\x5e\x73\x80\xba\x00\x00\x00\x00\x20\x13\x00' > "$dir/card-version"
      printf '\x03\x01\x43\x01\x00\x00\x03\x02\x00\x00\x00' > "$dir/card-aids"
      # GetDFNames in two frames: 000001 E110 D2760000850101, 000010 E120 D2760000850199.
      printf '\x03\x0a\x4c\x01\x00\x00\x10\xe1\xd2\x76\x00\x00\x85\x01\x01\x0c\x10\x00\x00\x20\xe1\xd2\x76\x00\x00\x85\x01\x99\x00' > "$dir/card-dfnames"
      printf '\x03\x06\x01\x02\x10\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x00' > "$dir/card-read"
      # A factory EV1 4K formatted by `format`: GetVersion, key settings, no application, free memory, ...
      printf '\x04\x02\x47\x04\x01\x01\x01\x00\x18\x05\x47\x04\x01\x01\x01\x04\x18\x05\x0e\x04\x3a\x61\x2c\x5e\x73\x80\xba\x00\x00\x00\x00\x20\x13\x00\x00\x00\x02\x0f\x01\x00\x00\xa0\x03\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' > "$dir/type4-format" ;;
    desfire-sm)  # key type, check and shape; the key; a length or key number; the ciphertext or MAC
      { printf '\x00'; head -c 16 /dev/zero; printf '\x04'; head -c 16 /dev/zero; } > "$dir/des-command"
      { printf '\x06'; head -c 16 /dev/zero; printf '\x00'; head -c 32 /dev/zero; } > "$dir/aes-changekey"
      { printf '\x0e'; head -c 16 /dev/zero; printf '\x00'; head -c 24 /dev/zero; } > "$dir/aes-mac"
      { printf '\x82'; head -c 16 /dev/zero; printf '\x0c'; head -c 12 /dev/zero; printf '\x04\x11\x22\x33\x44\x55\x66hello'; } > "$dir/tm-record" ;;
    desfire-card)  # image and security flags, chip, then frames (length, bytes); see the target
      # Factory EV1 4K: GetVersion in three frames, an application, a file, a write, a read, ISO reads.
      { printf '\x06'
        printf '\x05\x90\x60\x00\x00\x00\x05\x90\xaf\x00\x00\x00\x05\x90\xaf\x00\x00\x00'
        printf '\x14\x90\xca\x00\x00\x0e\x01\x00\x00\x0f\xa1\x10\xe1\xd2\x76\x00\x00\x85\x01\x01\x00'
        printf '\x09\x90\x5a\x00\x00\x03\x01\x00\x00\x00'
        printf '\x0f\x90\xcd\x00\x00\x09\x02\x04\xe1\x00\xee\xee\x20\x00\x00\x00'
        printf '\x11\x90\x3d\x00\x00\x0b\x02\x00\x00\x00\x04\x00\x00\x41\x42\x43\x44\x00'
        printf '\x0d\x90\xbd\x00\x00\x07\x02\x00\x00\x00\x00\x00\x00\x00'
        printf '\x07\x00\xa4\x00\x0c\x02\xe1\x04\x05\x00\xb0\x00\x00\x04'
        printf '\x07\x90\xaa\x00\x00\x01\x00\x07\x90\xaf\x00\x00\x01\x00\x00'
        printf '\x05\x90\x51\x00\x00\x00\x02\x6a\x00\xff\x01\x60'; } > "$dir/session"
      # An image (EV1 4K, no application), then GetFreeMemory natively.
      { printf '\x05\x2a\x00DESF\x01\x18\x04\x3a\x61\x2c\x5e\x73\x80\x00\x10\x00\x00\x00\x00\x0f\x00\x01\x00\x00'
        head -c 16 /dev/zero; printf '\x00\x00\x01\x6e'; } > "$dir/image"
      # EV2 4K: an AES application, AuthenticateEV2First (an even token), then MAC-mode commands
      # (the stand-in's MACs are zeros) and a plain-mode file write and read in the session.
      { printf '\x0e'
        printf '\x0b\x90\xca\x00\x00\x05\x01\x00\x00\x0f\x82\x00\x09\x90\x5a\x00\x00\x03\x01\x00\x00\x00'
        printf '\x08\x90\x71\x00\x00\x02\x00\x00\x00\x26\x90\xaf\x00\x00\x20'; head -c 33 /dev/zero
        printf '\x0e\x90\x45\x00\x00\x08'; head -c 9 /dev/zero
        printf '\x15\x90\xcd\x00\x00\x0f\x01\x00\xee\xee\x20\x00\x00'; head -c 9 /dev/zero
        printf '\x11\x90\x3d\x00\x00\x0b\x01\x00\x00\x00\x04\x00\x00\x41\x42\x43\x44\x00'
        printf '\x0d\x90\xbd\x00\x00\x07\x01\x00\x00\x00\x00\x00\x00\x00\x07\x90\x77\x00\x00\x01\x01\x00'; } > "$dir/ev2"
      # A DESFire Light: GetVersion, ISO SELECT of its DF, GetFileIDs, AuthenticateEV2First with
      # key 1 (an even token), a Full-mode ReadData under ADh, a native GetVersion (6E 00).
      { printf '\x12'
        printf '\x05\x90\x60\x00\x00\x00\x15\x00\xa4\x04\x0c\x10\xa0\x00\x00\x03\x96\x56\x43\x41\x03\xf0\x15\x40\x00\x00\x00\x0b'
        printf '\x05\x90\x6f\x00\x00\x00\x08\x90\x71\x00\x00\x02\x01\x00\x00\x26\x90\xaf\x00\x00\x20'; head -c 33 /dev/zero
        printf '\x15\x90\xad\x00\x00\x0f\x00\x00\x00\x00\x10\x00\x00'; head -c 9 /dev/zero
        printf '\x01\x60'; } > "$dir/light" ;;
    hostile-tag)  # platform, capabilities, then the answers (see the target)
      printf '\x01\x00\x00\x10\x04\x01\x02\x03\x04\x05\x06\x07\x08\xe1\x10\x12\x00\x01\x02\x03\x04\x00\x10\x03\x00\xfe\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' > "$dir/type2"
      printf '\x03\x00\x00\x02\x90\x00\x00\x02\x90\x00\x00\x11\x00\x0f\x20\x00\x3b\x00\x34\x04\x06\xe1\x04\x00\x32\x00\x00\x90\x00' > "$dir/type4" ;;
  esac
}

# Targets that share their sources share one binary: "ndef" (NDEF and its JSON), "ntag424" (its
# parsers and its secure-messaging answers, without swift-crypto: ntag424, ntag424-sm), "ciphers"
# (DESFire's EV1 secure messaging over libcrypto: desfire-sm) and "tags" (everything a tag or a
# reader sends); FUZZ_TARGET tells the binary which entry point to run.
# Three compilations instead of one per target: most of a build is the same NFCTags and NFCEmulator.
group() { case "$1" in ndef) echo ndef ;; ntag424|ntag424-sm) echo ntag424 ;; desfire-sm) echo ciphers ;; *) echo tags ;; esac; }
group_targets() { local t; for t in $TARGETS; do if [ "$(group "$t")" = "$1" ]; then echo "$t"; fi; done; }
# The sources of a group: the union of its targets' sources (each file once).
group_sources() { local t; for t in $(group_targets "$1"); do sources "$t"; done | tr ' ' '\n' | sort -u; }
# The binary a target runs in.
binary() { echo ".build-fuzz/_$(group "$1")/fuzz"; }

build() {
  local group dir binary
  group=$(group "$1")
  dir=.build-fuzz/_$group
  binary=$dir/fuzz
  local targets entries=""
  targets=$(group_targets "$group")
  for t in $targets; do entries="$entries $(entry "$t")"; done
  mkdir -p "$dir/src"
  # Rebuild only when an entry point, a source or this script is newer than the binary.
  if [ -x "$binary" ] && [ -z "$(find $(group_sources "$group") $entries "$0" -newer "$binary" \( -name '*.swift' -o -name '*.[ch]' -o -name fuzz.sh \) 2>/dev/null | head -n 1)" ]; then
    return 0
  fi
  rm -f "$dir/src"/*.swift
  local f
  local owner
  for f in $(find $(group_sources "$group") -name '*.swift' | sort); do
    # One module: the imports of the other project modules go (and swift-log's: see DetectionFuzz),
    # and each module's own `LibC` (its Platform.swift, docs/platforms.md) is renamed after the
    # module, so that the several modules' wrappers do not collide in the one module.
    owner=${f#Sources/}; owner=${owner%%/*}
    sed -E -e '/^(@_exported )?import (Hex|Locking|NDEF|NDEFJSON|NFCTransport|NFCTags|NFCEmulator|NFCEmulatorVPCD|NFCReaders|NTAG424Commands|EV2SecureMessaging|Logging)$/d' \
      -e "s/\\bLibC\\b/LibC_$owner/g" "$f" > "$dir/src/$(echo "${f#Sources/}" | tr / _)"
  done
  echo "fuzz: building $group ($(echo $targets))"
  # The NDEF target keeps the module name NDEFJSON: its sources name it (NDEFJSON.hexString).
  local module=Fuzz_$group
  if [ "$group" = ndef ]; then
    module=NDEFJSON
    cp "$(entry ndef)" "$dir/src/entry_ndef.swift"
  else
    # Each entry point becomes fuzzOneInput_<target>; one LLVMFuzzerTestOneInput picks it.
    local dispatch=$dir/src/FuzzDispatch.swift name
    {
      echo "// Generated by scripts/fuzz.sh: the entry point of the target FUZZ_TARGET names."
      echo "import Glibc"
      echo "let fuzzEntry: (UnsafePointer<UInt8>, Int) -> Int32 = {"
      echo '  let name = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""'
      echo "  switch name {"
      for t in $targets; do echo "  case \"$t\": return fuzzOneInput_$(echo "$t" | tr - _)"; done
      echo '  default: fatalError("FUZZ_TARGET: no target \(name) in this binary")'
      echo "  }"
      echo "}()"
      echo '@_cdecl("LLVMFuzzerTestOneInput")'
      echo "public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 { fuzzEntry(data, size) }"
    } > "$dispatch"
    for t in $targets; do
      name=$(echo "$t" | tr - _)
      sed -e '/^@_cdecl("LLVMFuzzerTestOneInput")$/d' \
          -e "s/^public func fuzzOneInput(/func fuzzOneInput_$name(/" "$(entry "$t")" > "$dir/src/entry_$name.swift"
    done
  fi
  # A group with C sources (COpenSSL): each compiled with clang and instrumented the same way, its
  # headers given to Swift as the module the Swift sources import.
  local cflags=() c
  rm -rf "$dir/c" && mkdir -p "$dir/c"
  for c in $(find $(group_sources "$group") -name '*.c' | sort); do
    clang -c -O1 -g -fsanitize=fuzzer-no-link,address -I "$(dirname "$c")/include" "$c" -o "$dir/c/$(basename "$c" .c).o"
    printf 'module %s {\n  header "%s"\n  export *\n}\n' "$(basename "$(dirname "$c")")" \
      "$PWD/$(ls "$(dirname "$c")"/include/*.h | head -n 1)" >> "$dir/c/module.modulemap"
    cflags+=("$dir/c/$(basename "$c" .c).o")
  done
  [ ${#cflags[@]} = 0 ] || cflags+=(-I "$dir/c")
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name "$module" -package-name nfctag \
    "$dir"/src/*.swift "${cflags[@]}" -o "$binary" 2>&1 | { grep -v "Cannot export local symbol" || true; }
  [ "${PIPESTATUS[0]}" = 0 ] || { rm -f "$binary"; return 1; }
}

# Runs one target for `seconds`, or for $FUZZ_RUNS executions when set; prints its executions,
# exec/s, wall time and corpus size; returns non-zero on any finding.
run() {
  local target=$1 seconds=$2 dir=.build-fuzz/$1 binary
  binary=$PWD/$(binary "$target")
  mkdir -p "$dir/corpus"
  seed "$dir/corpus" "$target"
  local log=$dir/last.log status=0 limit=-max_total_time="$seconds" began=$SECONDS
  if [ -n "${FUZZ_RUNS:-}" ]; then
    [[ "$FUZZ_RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: FUZZ_RUNS must be a positive number" >&2; exit 64; }
    limit=-runs="$FUZZ_RUNS"
  fi
  ( cd "$dir" && FUZZ_TARGET=$target "$binary" "$limit" -timeout=1 -rss_limit_mb=2048 -max_len="$(max_len "$target")" \
      -print_final_stats=1 -artifact_prefix=./ corpus ) > "$log" 2>&1 || status=$?
  local execs rate
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  printf 'fuzz: %-17s %12s executions  %8s exec/s  %6s s  %6s inputs  %s\n' "$target" "${execs:-?}" "${rate:-?}" \
    "$((SECONDS - began))" "$(ls "$dir/corpus" | wc -l)" "$([ "$status" = 0 ] && echo ok || echo "FAILED (see $log)")"
  if [ "$status" != 0 ]; then grep -E "ERROR|Fatal error|SUMMARY|artifact" "$log" | head -n 8 >&2; fi
  return "$status"
}

what=${1:-all}
seconds=${2:-60}
if [ "$what" = list ]; then echo "$TARGETS"; exit 0; fi
# The groups the targets in $@ run in, each once.
groups_of() { local t; for t in "$@"; do group "$t"; done | sort -u; }
if [ "$what" = build ]; then
  for g in $(groups_of $([ "${2:-all}" = all ] && echo "$TARGETS" || echo "$2")); do build "$(group_targets "$g" | head -n 1)"; done
  exit 0
fi
if [[ "$what" =~ ^[0-9]+$ ]]; then seconds=$what; what=all; fi  # scripts/fuzz.sh SECONDS, as before
[ "$what" = all ] && list=$TARGETS || list=$what
for t in $list; do entry "$t" > /dev/null; done
for g in $(groups_of $list); do
  build "$(group_targets "$g" | head -n 1)" || { echo "fuzz: the $g binary does not build"; exit 1; }
done
# FUZZ_JOBS targets run at once (default 2, one per core of the CI machine); each prints its line
# when it ends.
jobs_max=${FUZZ_JOBS:-2}
[[ "$jobs_max" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: FUZZ_JOBS must be a positive number" >&2; exit 64; }
failures=$(mktemp)
trap 'rm -f "$failures"' EXIT
for t in $list; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  { run "$t" "$seconds" || echo "$t" >> "$failures"; } &
done
wait
if [ -s "$failures" ]; then echo "fuzz: findings in: $(sort "$failures" | tr '\n' ' ')"; exit 1; fi
