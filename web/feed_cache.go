package web

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// defaultFeedCacheBytes bounds the memory rendered feeds may take.
const defaultFeedCacheBytes = 32 << 20

// rendered is one feed document as served, with its validators and the
// header values that follow from it, prepared once: they are shared by
// every response that sends them, so never written in place.
type rendered struct {
	version string // the store's FeedStamp.Version it was rendered at
	body    []byte
	etag    string
	lastMod time.Time // whole seconds, as HTTP dates carry them

	etagHdr, lastModHdr, contentTypeHdr, lengthHdr []string

	gzOnce      sync.Once
	gz          []byte
	gzLengthHdr []string
}

func newRendered(version string, body []byte, etag, contentType string, lastMod time.Time) *rendered {
	lastMod = lastMod.UTC().Truncate(time.Second)
	return &rendered{
		version: version, body: body, etag: etag, lastMod: lastMod,
		etagHdr:        []string{etag},
		lastModHdr:     []string{lastMod.Format(http.TimeFormat)},
		contentTypeHdr: []string{contentType},
		lengthHdr:      []string{strconv.Itoa(len(body))},
	}
}

// gzipped is the body compressed, and its Content-Length, computed once.
func (r *rendered) gzipped() ([]byte, []string) {
	r.gzOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(r.body)
		zw.Close()
		r.gz = buf.Bytes()
		r.gzLengthHdr = []string{strconv.Itoa(len(r.gz))}
	})
	return r.gz, r.gzLengthHdr
}

// cached is a rendered feed and what held when it was last found current.
// It is replaced, never changed, so readers need no lock.
type cached struct {
	r      *rendered
	gen    uint64     // the store's Generation then
	next   *time.Time // the soonest next harvest in the feed's scope then
	public bool       // may shared caches keep it
}

// feedCache keeps the newest page of each feed as rendered. An entry is
// served without a query while the store's Generation is the one it was
// found current at; after any write it is checked against the store's
// stamp for its scope, so a harvest that stores anything invalidates what
// it may have changed.
type feedCache struct {
	mu    sync.Mutex
	m     map[string]*cached
	bytes int
	limit int
}

func newFeedCache(limit int) *feedCache {
	return &feedCache{m: map[string]*cached{}, limit: limit}
}

// feedCacheKey names the newest page of one feed: path is its path with
// the extension ("feeds/<public id>.atom").
func feedCacheKey(path string, perPage bool) string {
	if perPage {
		return path + "?entries=page"
	}
	return path
}

// get returns what is cached under key, or nil.
func (fc *feedCache) get(key string) *cached {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.m[key]
}

// size is what a document is counted as: the compressed copy as half the
// body.
func (c *cached) size() int { return len(c.r.body) * 3 / 2 }

// put caches e under key, dropping other documents while the cache is over
// its limit.
func (fc *feedCache) put(key string, e *cached) {
	size := e.size()
	if size > fc.limit {
		return
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if old := fc.m[key]; old != nil {
		fc.bytes -= old.size()
	}
	fc.m[key] = e
	fc.bytes += size
	for k, v := range fc.m {
		if fc.bytes <= fc.limit {
			break
		}
		if k != key {
			delete(fc.m, k)
			fc.bytes -= v.size()
		}
	}
}
