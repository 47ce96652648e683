// Batch provisioning over NFCSession.
import CSV
import Crypto
import NFCSession
import ProvisioningLedger
