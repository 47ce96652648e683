// The PostgreSQL ledger: see ProvisioningLedger.Ledger.
import ProvisioningLedger
import PostgresNIO
