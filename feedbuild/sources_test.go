package feedbuild

// The feeds name each collection's source as the registry describes it:
// the tests link the sources tidings follows, as the binary does.
import _ "tidings/harvest/sources"
