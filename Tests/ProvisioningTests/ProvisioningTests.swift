import Testing
import Provisioning
