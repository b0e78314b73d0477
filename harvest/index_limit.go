package harvest

// maxSitemapChildren bounds the child documents of an index (a sitemap
// index, a resource list index) one harvest reads: an index may name
// thousands.
const maxSitemapChildren = 20
