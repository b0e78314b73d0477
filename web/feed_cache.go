package web

import (
	"bytes"
	"compress/gzip"
	"sync"
	"time"
)

// defaultFeedCacheBytes bounds the memory rendered feeds may take.
const defaultFeedCacheBytes = 32 << 20

// rendered is one feed document as served, with its validators.
type rendered struct {
	version string // the store's FeedStamp.Version it was rendered at
	body    []byte
	etag    string
	lastMod time.Time // whole seconds, as HTTP dates carry them

	gzOnce sync.Once
	gz     []byte
}

// gzipped is the body compressed, computed once.
func (r *rendered) gzipped() []byte {
	r.gzOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(r.body)
		zw.Close()
		r.gz = buf.Bytes()
	})
	return r.gz
}

// feedCache keeps the newest page of each feed as rendered. An entry is
// used only while the store's stamp for its scope is unchanged, so a
// harvest that stores anything invalidates what it may have changed.
type feedCache struct {
	mu    sync.Mutex
	m     map[string]*rendered
	bytes int
	limit int
}

func newFeedCache(limit int) *feedCache {
	return &feedCache{m: map[string]*rendered{}, limit: limit}
}

// get returns the document cached under key if it was rendered at
// version.
func (fc *feedCache) get(key, version string) *rendered {
	if key == "" {
		return nil
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if r := fc.m[key]; r != nil && r.version == version {
		return r
	}
	return nil
}

// put caches r under key, dropping other documents while the cache is over
// its limit. The compressed copy is counted as half the body.
func (fc *feedCache) put(key string, r *rendered) {
	size := len(r.body) * 3 / 2
	if key == "" || size > fc.limit {
		return
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if old := fc.m[key]; old != nil {
		fc.bytes -= len(old.body) * 3 / 2
	}
	fc.m[key] = r
	fc.bytes += size
	for k, v := range fc.m {
		if fc.bytes <= fc.limit {
			break
		}
		if k != key {
			delete(fc.m, k)
			fc.bytes -= len(v.body) * 3 / 2
		}
	}
}
