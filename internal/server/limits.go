package server

import (
	"fmt"
	"math"
	"net/http"
)

// bodyTooLargeMsg states the limit a 413 answer hit, so a caller knows what
// to send instead; the limit is Config.BodyLimit (serve --body-limit).
func bodyTooLargeMsg(limit string) string {
	return fmt.Sprintf("request body over the size limit of %s (serve --body-limit)", limit)
}

func bodyTooLarge(limit int64) error {
	return apiError(http.StatusRequestEntityTooLarge, "body_too_large", bodyTooLargeMsg(fmt.Sprintf("%d bytes", limit)))
}

// retryAfterSeconds is how long until the per-key limiter has a token
// again: one token's time, rounded up to whole seconds.
func retryAfterSeconds(rate float64) int {
	if rate <= 0 {
		return 1
	}
	return int(math.Max(1, math.Ceil(1/rate)))
}
