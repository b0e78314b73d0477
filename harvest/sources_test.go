package harvest_test

// The core is tested through the sources, as the binary links them. Its
// internal tests, in the same test binary, follow sites through them
// too: an internal test cannot import an adapter, which imports harvest.
import _ "tidings/harvest/sources"
