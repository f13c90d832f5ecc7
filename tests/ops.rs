//! Int, bool and float ops through the decorator give exactly what the
//! undecorated backend gives.

use burn::backend::Flex;
use burn::tensor::backend::Backend;
use burn::tensor::{Bool, Int, Tensor, TensorData};
use burn_swap::Swapping;

fn int_and_bool_ops<B: Backend>() -> Vec<TensorData> {
    let device = Default::default();
    let a = Tensor::<B, 1, Int>::arange(0..12, &device).reshape([3, 4]);
    let b = Tensor::<B, 2, Int>::from_data(
        TensorData::new(vec![3i32, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8], [3, 4]),
        &device,
    );
    let mask: Tensor<B, 2, Bool> = a.clone().greater(b.clone());
    let floats = Tensor::<B, 2>::from_data(
        TensorData::new((0..12).map(|v| v as f32 * 0.5 - 2.0).collect(), [3, 4]),
        &device,
    );
    vec![
        (a.clone() + b.clone()).into_data(),
        (a.clone() * b.clone()).into_data(),
        b.clone().abs().into_data(),
        b.clone().argmax(1).into_data(),
        b.clone().sort(1).into_data(),
        b.clone().cumsum(1).into_data(),
        a.clone().mask_where(mask.clone(), b.clone()).into_data(),
        mask.clone().into_data(),
        mask.clone().bool_not().into_data(),
        mask.clone().any_dim(1).into_data(),
        mask.clone().int().sum().into_data(),
        floats.clone().mask_fill(mask.clone(), 7.0).into_data(),
        floats.clone().greater_elem(0.0).into_data(),
        floats.clone().argmax(1).into_data(),
        floats
            .clone()
            .gather(1, b.clone().abs().clamp(0, 3))
            .into_data(),
        b.clone().float().div_scalar(3.0).into_data(),
        floats.clone().int().into_data(),
        Tensor::cat(vec![a.clone(), b.clone()], 0).into_data(),
        a.transpose().slice([0..2, 1..3]).into_data(),
        floats.max_dim_with_indices(1).1.into_data(),
    ]
}

#[test]
fn int_and_bool_ops_through_the_decorator_match_the_backend() {
    let expected = int_and_bool_ops::<Flex>();
    let actual = int_and_bool_ops::<Swapping<Flex>>();
    assert_eq!(expected.len(), actual.len());
    for (i, (e, a)) in expected.iter().zip(&actual).enumerate() {
        assert_eq!(e.dtype, a.dtype, "op {i}: dtype");
        assert_eq!(e.shape, a.shape, "op {i}: shape");
        assert!(e.as_bytes() == a.as_bytes(), "op {i}: values differ");
    }
}

#[test]
fn the_decorated_backend_names_itself() {
    assert_eq!(
        <Swapping<Flex> as Backend>::name(&Default::default()),
        format!("swapping<{}>", Flex::name(&Default::default()))
    );
}
