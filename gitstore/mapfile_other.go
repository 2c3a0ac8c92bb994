//go:build !unix

package gitstore

import "os"

// mapFile reads the file at path whole (the platforms git-loop maps files on are unix).
func mapFile(path string) ([]byte, func() error, error) {
	data, err := os.ReadFile(path)
	return data, func() error { return nil }, err
}
