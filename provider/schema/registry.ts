/**
 * What the mapping collects while it walks the types: the named types it defined, which TypeScript type
 * each came from, the fields it had to leave out, the doc status of every field, and the packages it
 * refers to.
 */
import * as ts from "typescript";
import { ComplexTypeSpec, DependencySpec } from "./spec";

/** A field the schema leaves out, and why. */
export interface SkippedField {
  /** `<Owner>.<field>`, e.g. `KarmadaControlPlane.controllers` or `RotationSettings.now`. */
  readonly field: string;
  readonly reason: string;
}

/** Doc status of one emitted field (`<Owner>.<field>`). */
export interface FieldDoc {
  readonly documented: boolean;
  /** `file:line` of its declaration, if it has one. */
  readonly location?: string;
}

/** Everything defined so far; one per generation. */
export class Registry {
  /** Named types by token. */
  readonly types = new Map<string, ComplexTypeSpec>();
  /** Token of the object type each TypeScript type became (identity: one type, one token). */
  readonly tokenOfType = new Map<ts.Type, string>();
  /** The TypeScript type behind each object token, to catch two types claiming one name. */
  readonly typeOfToken = new Map<string, ts.Type>();
  readonly skipped: SkippedField[] = [];
  /** By `<TypeName>.<field>` for object types and `<Component>.<field>` for component inputs. */
  readonly fieldDocs = new Map<string, FieldDoc>();
  readonly dependencies = new Map<string, DependencySpec>();

  skip(field: string, reason: string): void {
    if (!this.skipped.some((s) => s.field === field)) this.skipped.push({ field, reason });
  }

  depend(dependency: DependencySpec): void {
    this.dependencies.set(dependency.name, dependency);
  }

  /** Defines `token` (throws when a different TypeScript type already took the name). */
  define(token: string, spec: ComplexTypeSpec, from?: ts.Type): void {
    const previous = from && this.typeOfToken.get(token);
    if (previous && previous !== from) {
      throw new Error(`two different types are both named ${token}: rename one of them`);
    }
    this.types.set(token, spec);
    if (from) {
      this.typeOfToken.set(token, from);
      this.tokenOfType.set(from, token);
    }
  }
}
