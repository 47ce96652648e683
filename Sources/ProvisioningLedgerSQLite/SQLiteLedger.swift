// The SQLite ledger: see ProvisioningLedger.Ledger.
import ProvisioningLedger
import SQLiteNIO
