package rpc

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/filecoin-project/go-jsonrpc/auth"

	"github.com/snarkpipe/snarkpipe/rpc/api"
)

// permissioned fills out.Internal (a struct of func fields, each tagged perm:"...") with
// functions that check the caller's permission and then call impl's method of the same
// name. It does what go-jsonrpc's auth.PermissionedProxy does, except that a refusal is an
// *api.Error with CodeForbidden, so clients can tell it from a service error. A field with
// no or an unknown perm tag, or with no matching method, is a programming error: it panics
// at startup, never per request.
func permissioned(defaults []auth.Permission, impl any, out any) {
	internal := reflect.ValueOf(out).Elem().FieldByName("Internal")
	in := reflect.ValueOf(impl)
	errType := reflect.TypeFor[error]()
	for i := 0; i < internal.NumField(); i++ {
		field := internal.Type().Field(i)
		perm := field.Tag.Get("perm")
		if !slices.Contains(api.AllPermissions, perm) {
			panic(fmt.Sprintf("rpc: %s has perm tag %q", field.Name, perm))
		}
		method := in.MethodByName(field.Name)
		if !method.IsValid() || method.Type() != field.Type {
			panic(fmt.Sprintf("rpc: implementation has no method %s of type %v", field.Name, field.Type))
		}
		ft := field.Type
		if ft.NumIn() == 0 || ft.In(0) != reflect.TypeFor[context.Context]() || ft.Out(ft.NumOut()-1) != errType {
			panic(fmt.Sprintf("rpc: %s must take a context first and return an error last", field.Name))
		}
		name := field.Name
		internal.Field(i).Set(reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
			ctx := args[0].Interface().(context.Context)
			if hasPerm(ctx, defaults, perm) {
				return method.Call(args)
			}
			err := api.Errorf(api.CodeForbidden, "missing permission to invoke '%s' (need '%s')", name, perm)
			out := make([]reflect.Value, ft.NumOut())
			for k := 0; k < len(out)-1; k++ {
				out[k] = reflect.Zero(ft.Out(k))
			}
			out[len(out)-1] = reflect.ValueOf(error(err))
			return out
		}))
	}
}
