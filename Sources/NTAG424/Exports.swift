// The 424 DNA's command vocabulary without cryptography (chip version, file settings, access
// rights, the plain frames and answers) is NTAG424Commands', which nfctag links; a program that
// imports NTAG424 gets it too.
@_exported import NTAG424Commands
