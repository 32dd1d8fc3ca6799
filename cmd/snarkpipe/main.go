// Command snarkpipe is the snarkpipe binary: the proving daemon and its tools.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/rpc/api"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "snarkpipe:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	return newApp().RunContext(ctx, args)
}

func newApp() *cli.App {
	app := &cli.App{
		Name:    "snarkpipe",
		Usage:   "Groth16 proving service for Filecoin (PoRep C2, Window and Winning PoSt)",
		Version: api.Version,
		Commands: []*cli.Command{
			demoCmd,
			sealCmd,
			synthCmd,
			circuitinfoCmd,
			proveCmd,
			verifyCmd,
			daemonCmd,
			statusCmd,
			configCmd,
			authCmd,
			paramsCmd,
			benchCmd,
			workerCmd,
		},
	}
	politeErrors(app)
	return app
}
