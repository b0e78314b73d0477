package publish_test

// The tests follow sites as the binary does, with every source linked.
import _ "tidings/harvest/sources"
