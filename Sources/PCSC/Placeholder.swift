import CPCSC
