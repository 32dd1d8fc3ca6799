// Command snarkpipe is the snarkpipe binary: the proving daemon and its tools.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
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
	app := &cli.App{
		Name:  "snarkpipe",
		Usage: "Groth16 proving service for Filecoin (PoRep C2, Window and Winning PoSt)",
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
	return app.RunContext(ctx, args)
}
