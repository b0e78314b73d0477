package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// noLinks refuses a document path (rel, a slash path under the site's
// folder dir) that passes through a symbolic link: a link in the site,
// planted or checked out of a repository, would have tidings write its
// documents, or read back its state, outside the folder it was given. The
// site's folder itself may be a link; what lies under it may not. Missing
// components are fine: they are created as real folders.
func noLinks(dir, rel string) error {
	p := dir
	for part := range strings.SplitSeq(rel, "/") {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("publish: %s is a symbolic link, and tidings writes and reads its documents only in the site's own folders, as a link may lead outside the site; replace it with a real folder or file", p)
		}
	}
	return nil
}
