package pages_test

// The tests follow sites as the binary does, every source linked.
import _ "tidings/harvest/sources"
