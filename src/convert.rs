//! Rebuilding backend-generic op structs for another backend.
//!
//! A few op results and arguments (max-pool with indices, conv backward,
//! transactions, quantization parameters) are structs generic over the
//! backend. Crossing the decorator rebuilds them field by field: float
//! tensors go through a mapping (resolve a handle, wrap an output, or the
//! identity), everything else is the same type on both sides.

use burn_backend::ops::{
    Conv2dBackward, Conv3dBackward, DeformConv2dBackward, InterpolateBackward, MaxPool1dBackward,
    MaxPool1dWithIndices, MaxPool2dBackward, MaxPool2dWithIndices, TransactionPrimitive,
};
use burn_backend::quantization::QuantizationParametersPrimitive;
use burn_backend::tensor::FloatTensor;
use burn_backend::{Backend, TensorPrimitive};

/// Two backends whose int, bool and quantized primitives are the same types.
pub trait SamePrimitives<From: Backend>:
    Backend<
    IntTensorPrimitive = From::IntTensorPrimitive,
    BoolTensorPrimitive = From::BoolTensorPrimitive,
    QuantizedTensorPrimitive = From::QuantizedTensorPrimitive,
>
{
}

impl<From: Backend, To> SamePrimitives<From> for To where
    To: Backend<
        IntTensorPrimitive = From::IntTensorPrimitive,
        BoolTensorPrimitive = From::BoolTensorPrimitive,
        QuantizedTensorPrimitive = From::QuantizedTensorPrimitive,
    >
{
}

/// A backend-generic struct whose float tensors can be mapped to another backend.
pub trait MapFloats<From: Backend, To: SamePrimitives<From>> {
    /// The same struct for `To`.
    type Output;
    /// Rebuilds the struct, mapping each float tensor with `map`.
    fn map_floats(self, map: &mut impl FnMut(FloatTensor<From>) -> FloatTensor<To>)
        -> Self::Output;
}

macro_rules! map_struct {
    ($name:ident { $($float:ident),* } { $($opt:ident),* } { $($same:ident),* }) => {
        impl<From: Backend, To: SamePrimitives<From>> MapFloats<From, To> for $name<From> {
            type Output = $name<To>;
            fn map_floats(self, map: &mut impl FnMut(FloatTensor<From>) -> FloatTensor<To>) -> $name<To> {
                $name {
                    $($float: map(self.$float),)*
                    $($opt: self.$opt.map(&mut *map),)*
                    $($same: self.$same,)*
                }
            }
        }
    };
}

map_struct!(MaxPool1dWithIndices { output } {} { indices });
map_struct!(MaxPool2dWithIndices { output } {} { indices });
map_struct!(MaxPool1dBackward { x_grad } {} {});
map_struct!(MaxPool2dBackward { x_grad } {} {});
map_struct!(InterpolateBackward { x_grad } {} {});
map_struct!(Conv2dBackward { x_grad, weights_grad } { bias_grad } {});
map_struct!(Conv3dBackward { x_grad, weights_grad } { bias_grad } {});
map_struct!(DeformConv2dBackward { x_grad, offset_grad, weight_grad } { mask_grad, bias_grad } {});
map_struct!(QuantizationParametersPrimitive { scales } {} {});

impl<From: Backend, To: SamePrimitives<From>> MapFloats<From, To> for TensorPrimitive<From> {
    type Output = TensorPrimitive<To>;
    fn map_floats(
        self,
        map: &mut impl FnMut(FloatTensor<From>) -> FloatTensor<To>,
    ) -> TensorPrimitive<To> {
        match self {
            TensorPrimitive::Float(t) => TensorPrimitive::Float(map(t)),
            TensorPrimitive::QFloat(q) => TensorPrimitive::QFloat(q),
        }
    }
}

impl<From: Backend, To: SamePrimitives<From>> MapFloats<From, To> for TransactionPrimitive<From> {
    type Output = TransactionPrimitive<To>;
    fn map_floats(
        self,
        map: &mut impl FnMut(FloatTensor<From>) -> FloatTensor<To>,
    ) -> TransactionPrimitive<To> {
        // `tr_execute` reads only the four lists; the registration order is
        // kept by the caller (`TransactionPrimitive::execute_async`).
        TransactionPrimitive::new(
            self.read_floats.into_iter().map(map).collect(),
            self.read_qfloats,
            self.read_ints,
            self.read_bools,
        )
    }
}
