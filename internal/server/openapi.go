package server

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

//go:embed openapi.json
var openapiDoc []byte

// openapi serves the OpenAPI 3 description of this API (no auth: it holds
// no data, and clients need it to learn how to authenticate).
func (s *Server) openapi(c echo.Context) error {
	return c.Blob(http.StatusOK, "application/json", openapiDoc)
}
