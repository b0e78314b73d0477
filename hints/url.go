package hints

// MaxURLBytes is the longest URL any parser keeps: the sitemap protocol's
// limit, which SCP adopts too. A longer one is skipped with a warning, so
// that one entry cannot make every feed that lists it megabytes long.
const MaxURLBytes = 2048
