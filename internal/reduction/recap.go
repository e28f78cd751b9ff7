package reduction

import (
	"fmt"
	"os"
)

// Recap re-applies the cap to a stored result, as the recovery rule of the
// execution-governance design asks of every read: a result may exceed
// today's cap because it was stored under a larger
// reduction_max_length_for_trunc, before the cap existed, or by an import
// that bypassed the writer. spillPath is the record's spill path ("" when
// none). It returns the result to show and the spill path to name:
//
//   - a result within the cap is returned unchanged;
//   - with a spill file under Root (a <persisted-output> block written
//     under the larger cap), the block is rebuilt from that file's head and
//     tail, naming the same file; nothing is written;
//   - with no spill file, the result is the full output: it is persisted
//     like a run's output (once — a file of the same size already there is
//     reused) and the block names it;
//   - a spill path that cannot be read back (gone, or outside Root, which
//     an import could put there) is never read nor overwritten: the block
//     is cut from the stored result itself and says why.
//
// The returned result is never longer than the cap.
func Recap(cfg Config, result, spillPath string) (string, string, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return "", "", err
	}
	if len(result) <= cfg.MaxLength {
		return result, spillPath, nil
	}
	tailLen := max(cfg.MaxLength, MaxPartialBytes)
	if spillPath != "" {
		head, err := ReadPersisted(cfg.Root, spillPath, 0, cfg.MaxLength)
		if err == nil {
			tail, terr := ReadPersisted(cfg.Root, spillPath, max(0, head.Size-int64(tailLen)), tailLen)
			if terr == nil {
				line := fmt.Sprintf("Output too large (%d). Full output saved to: %s", head.Size, spillPath)
				return persistedBlock(line, head.Data, tail.Data, cfg.MaxLength), spillPath, nil
			}
			err = terr
		}
		line := fmt.Sprintf("Stored result too large (%d). Full output could not be read back: %s", len(result), err)
		return persistedBlock(line, []byte(result), []byte(result[max(0, len(result)-tailLen):]), cfg.MaxLength), spillPath, nil
	}
	path, err := SpillPath(cfg.Root, cfg.ConversationID, cfg.ExecutionID)
	if err != nil {
		return "", "", err
	}
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() && st.Size() == int64(len(result)) {
		line := fmt.Sprintf("Output too large (%d). Full output saved to: %s", len(result), path)
		return persistedBlock(line, []byte(result), []byte(result[len(result)-min(len(result), tailLen):]), cfg.MaxLength), path, nil
	}
	out, err := Reduce(cfg, []byte(result))
	if err != nil {
		return out, "", fmt.Errorf("recap stored result of %s: %w", cfg.ExecutionID, err)
	}
	return out, path, nil
}
