package snapshots

import "unsafe"

// fileList is every cached file of the directory, decoded: what a test compares.
func (d *cachedDir) fileList() []cachedFile {
	if d.raw == "" {
		return d.files
	}
	var files []cachedFile
	for _, off := range d.fileOffsets() {
		dec := decoder{all: d.raw, buf: unsafe.Slice(unsafe.StringData(d.raw), len(d.raw))[off:]}
		files = append(files, dec.file())
	}
	return files
}
