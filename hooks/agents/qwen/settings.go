package qwen

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/git-loop/git-loop/hooks/fileedit"
)

// settings is what git-loop reads of a Qwen Code settings file (JSON with comments). A
// version 1 file (no "$version", flat keys) names folder trust "folderTrust" at the top;
// Qwen Code moves it to security.folderTrust.enabled as it loads the file.
type settings struct {
	Version             *float64        `json:"$version"`
	DisableAllHooks     *bool           `json:"disableAllHooks"`
	StopHookBlockingCap *float64        `json:"stopHookBlockingCap"`
	LegacyFolderTrust   json.RawMessage `json:"folderTrust"`
	Security            struct {
		FolderTrust struct {
			Enabled *bool `json:"enabled"`
		} `json:"folderTrust"`
	} `json:"security"`
}

// folderTrust is the file's folder trust setting, nil when it sets none.
func (s settings) folderTrust() *bool {
	if e := s.Security.FolderTrust.Enabled; e != nil {
		return e
	}
	var legacy bool
	if (s.Version == nil || *s.Version < 2) && json.Unmarshal(s.LegacyFolderTrust, &legacy) == nil {
		return &legacy
	}
	return nil
}

// readSettings reads the settings file at path; a missing or unreadable one sets nothing.
func readSettings(path string) settings {
	var s settings
	if _, err := fileedit.ReadJSONC(path, &s); err != nil {
		return settings{}
	}
	return s
}

// systemFile and systemDefaultsFile are the machine's settings files: their hooks load in
// every folder, and system settings override the user's and the project's, system defaults
// only fill in.
func systemFile() string {
	if p := os.Getenv("QWEN_CODE_SYSTEM_SETTINGS_PATH"); p != "" {
		return p
	}
	return "/etc/qwen-code/settings.json"
}

func systemDefaultsFile() string {
	if p := os.Getenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH"); p != "" {
		return p
	}
	return filepath.Join(filepath.Dir(systemFile()), "system-defaults.json")
}

// effective is the first of the files (highest precedence first) whose value pick finds.
func effective[T any](pick func(settings) *T, files ...string) *T {
	for _, f := range files {
		if v := pick(readSettings(f)); v != nil {
			return v
		}
	}
	return nil
}
