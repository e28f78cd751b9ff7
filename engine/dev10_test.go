package engine_test

import "testing"

// dev10Floor is the floor TestDev10CorpusBars holds the scanner to on
// testdata/dev10_cases.jsonl: a development list of bash ways to the same
// effect (principle 6): extracting or copying into system directories,
// deletes that reach outside the workspace by glob, file-system tools on
// every block-device name family (and on image files, review), security
// agents stopped through any service manager or kill, and history wiping,
// with look-alikes that must stay allowed or reviewed. The floor is the
// figure measured after the work, so a regression shows.
//
// Measured after the work: deny recall 1.000 (104/104), on evasions
// 1.000, false denies 0/11, agreement 1.000 (143/143). On the base code
// most system-dir extractions (tar -C, 7z -o, cpio -D, patch, install -d,
// curl --output-dir, the git clone directory, extraction into a cwd set by
// cd), /dev/disk/by-* writes, mkfs on an image (denied, not reviewed),
// init-script and rc-service stops, nft table flushes, `history -w
// /dev/null` and `rm -rf ~/.[!.]*` were missed.
//
// Extended (categories cwd_option, extract_root, archive_tools,
// defense_evasion2, piped_client, hidden_glob): 243 cases, deny recall
// 1.000 (179/179), false denies 0/19, agreement 1.000. Before that work
// env -C/sudo -D/git -C/make -C directories, extraction into / itself,
// ar/pax/unsquashfs/dpkg -x/cabextract/unar/unrar/jar, firewalld opened to
// all, auditctl never rules and backlog_wait_time 0, chattr -i on logs,
// escapes piped into client shells and `~/.*` were allowed or reviewed.
var dev10Floor = corpusFigures{recall: 1, evasionRecall: 1, falseDeny: 0, agreement: 1}

// TestDev10CorpusBars holds the scanner to the figures measured on the bash
// same-effect development list (see dev10Floor). With
// TOOLWARDEN_DEV10_REPORT=1 it logs the per-category figures.
func TestDev10CorpusBars(t *testing.T) {
	holdFloor(t, "dev10_cases.jsonl", 120, "TOOLWARDEN_DEV10_REPORT", dev10Floor)
}
