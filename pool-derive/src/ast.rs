//! The derive input as the later stages see it: the syn tree, borrowed, with
//! every `#[pool(...)]` attribute already read into typed slots.

use syn::{Data as SynData, DeriveInput, Fields, Index, Member, Type};

use crate::attr;
use crate::ctxt::Ctxt;

/// Which derive is running: both read the same `#[pool(...)]` attributes.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Derive {
    /// `#[derive(Poolable)]`: `Reset` with the template, `Poolable` and a
    /// pool.
    Poolable,
    /// `#[derive(Reset)]`: the field-by-field `Reset` of a part of a
    /// pooled object, with no pool and no constructor.
    Reset,
}

impl Derive {
    /// The trait's name, for error messages.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Derive::Poolable => "Poolable",
            Derive::Reset => "Reset",
        }
    }
}

pub(crate) struct Input<'a> {
    pub(crate) derive: Derive,
    pub(crate) original: &'a DeriveInput,
    pub(crate) attrs: attr::Container,
    pub(crate) data: Data<'a>,
}

/// What was derived on. Only structs are supported; the other two are kept
/// so that validation can point at them.
pub(crate) enum Data<'a> {
    /// Named, tuple or unit (no fields) struct.
    Struct(Vec<Field<'a>>),
    Enum(&'a syn::DataEnum),
    Union(&'a syn::DataUnion),
}

pub(crate) struct Field<'a> {
    /// `self.#member`: the name, or the index of a tuple struct's field.
    pub(crate) member: Member,
    pub(crate) ty: &'a Type,
    pub(crate) attrs: attr::Field,
}

impl Field<'_> {
    /// A field reset by its type's `Reset`: no `skip`, `default`, `reset =
    /// path` or `fresh = path`. Only these are restored from the
    /// constructor's value.
    pub(crate) fn is_plain(&self) -> bool {
        let attrs = &self.attrs;
        attrs.skip.is_none()
            && attrs.default.is_none()
            && attrs.reset.is_none()
            && attrs.fresh.is_none()
    }
}

impl<'a> Input<'a> {
    pub(crate) fn from_syn(cx: &Ctxt, derive: Derive, input: &'a DeriveInput) -> Self {
        let attrs = attr::Container::from_ast(cx, &input.attrs);
        let data = match &input.data {
            SynData::Struct(data) => Data::Struct(fields(cx, &data.fields)),
            SynData::Enum(data) => Data::Enum(data),
            SynData::Union(data) => Data::Union(data),
        };
        Input {
            derive,
            original: input,
            attrs,
            data,
        }
    }
}

fn fields<'a>(cx: &Ctxt, fields: &'a Fields) -> Vec<Field<'a>> {
    fields
        .iter()
        .enumerate()
        .map(|(i, field)| Field {
            member: match &field.ident {
                Some(ident) => Member::Named(ident.clone()),
                None => Member::Unnamed(Index::from(i)),
            },
            ty: &field.ty,
            attrs: attr::Field::from_ast(cx, &field.attrs),
        })
        .collect()
}
