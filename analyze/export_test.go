package analyze

// InstallAnchor is for the analyses benchmark (package analyze_test, which
// may import replay): it installs the anchor, the SQL the library replaced.
var InstallAnchor = installAnchor
